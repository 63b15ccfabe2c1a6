package dev.kvprov.agent.net;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvprov.agent.os.SystemRoot;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Small files read with a cap: a failing boot reads what is there quickly and never more than it
 * can use, whatever an image holds at those paths.
 */
final class BoundedText {
  /** More than any of the files read here holds on a VM (a dhclient lease file is ~1 KiB). */
  static final int MAX_BYTES = 64 * 1024;

  /** Longest text kept of one value: a name, an address, a state, why IMDS did not answer. */
  static final int MAX_VALUE = 96;

  private BoundedText() {}

  /**
   * Where {@code absolute} is under {@code root}; empty when a loop of links in an image (or a link
   * that cannot be read) leaves it nowhere: such a file is one more that cannot be read.
   */
  static Optional<Path> resolve(SystemRoot root, String absolute) {
    try {
      return Optional.of(root.resolve(absolute));
    } catch (UncheckedIOException | SecurityException e) {
      return Optional.empty();
    }
  }

  /** {@link #read(Path)} of {@code absolute} under {@code root}. */
  static Optional<String> read(SystemRoot root, String absolute) {
    return resolve(root, absolute).flatMap(BoundedText::read);
  }

  /**
   * The file's first {@link #MAX_BYTES} as text, in whole lines: a longer file loses the line the
   * cap cuts, which read in part would say something else ({@code dev et} for {@code dev eth0}).
   * Empty when it is not a readable file.
   */
  static Optional<String> read(Path file) {
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    try (InputStream in = Files.newInputStream(file)) {
      byte[] bytes = in.readNBytes(MAX_BYTES + 1);
      int length = bytes.length > MAX_BYTES ? lastLineEnd(bytes, MAX_BYTES) : bytes.length;
      return Optional.of(new String(bytes, 0, length, UTF_8));
    } catch (IOException | SecurityException e) {
      return Optional.empty();
    }
  }

  /**
   * The file's last {@link #MAX_BYTES} as text, from the first whole line on: where a file that
   * grows by appending (dhclient's leases) keeps its newest part.
   */
  static Optional<String> tail(Path file) {
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    try (SeekableByteChannel channel = Files.newByteChannel(file)) {
      long size = channel.size();
      if (size <= MAX_BYTES) {
        return read(file);
      }
      channel.position(size - MAX_BYTES);
      ByteBuffer buffer = ByteBuffer.allocate(MAX_BYTES);
      while (buffer.hasRemaining() && channel.read(buffer) > 0) {
        // until the end, or the buffer is full
      }
      byte[] bytes = buffer.array();
      int start = 0;
      while (start < buffer.position() && bytes[start] != '\n') {
        start++;
      }
      start = Math.min(start + 1, buffer.position());
      return Optional.of(new String(bytes, start, buffer.position() - start, UTF_8));
    } catch (IOException | SecurityException e) {
      return Optional.empty();
    }
  }

  /** How many of the first {@code limit} bytes end with a whole line (0 when none does). */
  private static int lastLineEnd(byte[] bytes, int limit) {
    for (int i = limit - 1; i >= 0; i--) {
      if (bytes[i] == '\n') {
        return i + 1;
      }
    }
    return 0;
  }

  /** The first line of {@code absolute} under {@code root}, stripped and capped; empty if none. */
  static Optional<String> firstLine(SystemRoot root, String absolute) {
    return read(root, absolute)
        .flatMap(t -> t.lines().findFirst())
        .map(String::strip)
        .filter(s -> !s.isEmpty())
        .map(BoundedText::cap);
  }

  /**
   * {@code s} cut to {@link #MAX_VALUE} characters, never between the two halves of one (an emoji
   * in a link's alias), with control characters made visible.
   */
  static String cap(String s) {
    StringBuilder out = new StringBuilder();
    int i = 0;
    while (i < s.length()) {
      int c = s.codePointAt(i);
      if (out.length() + Character.charCount(c) > MAX_VALUE) {
        return out + "…";
      }
      if (Character.isISOControl(c)) {
        out.append('?');
      } else {
        out.appendCodePoint(c);
      }
      i += Character.charCount(c);
    }
    return out.toString();
  }
}
