package dev.kvprov.agent.net;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.io.InputStream;
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

  /** The file's first {@link #MAX_BYTES} as text; empty when it is not a readable file. */
  static Optional<String> read(Path file) {
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    try (InputStream in = Files.newInputStream(file)) {
      return Optional.of(new String(in.readNBytes(MAX_BYTES), UTF_8));
    } catch (IOException | SecurityException e) {
      return Optional.empty();
    }
  }

  /** The file's first line, stripped and capped; empty when there is none. */
  static Optional<String> firstLine(Path file) {
    return read(file)
        .flatMap(t -> t.lines().findFirst())
        .map(String::strip)
        .filter(s -> !s.isEmpty())
        .map(BoundedText::cap);
  }

  /** {@code s} cut to {@link #MAX_VALUE} characters, with control characters made visible. */
  static String cap(String s) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < s.length() && out.length() < MAX_VALUE; i++) {
      char c = s.charAt(i);
      out.append(Character.isISOControl(c) ? '?' : c);
    }
    return s.length() > MAX_VALUE ? out + "…" : out.toString();
  }
}
