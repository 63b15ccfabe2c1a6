package dev.kvprov.inspect.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvprov.inspect.text.Text;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;

/**
 * A command's output as UTF-8 bytes through one large buffer: a big pool's lines are copied from
 * the records' bytes (a dump) or encoded once (a list), then written a buffer at a time. On kvp's
 * own stdout the bytes go to the file descriptor; into any other writer (a test's, picocli's) they
 * are decoded back to text, so both see the same characters.
 *
 * <p>Not thread-safe. Nothing else may write to the command's writer between {@link #flush}es.
 */
final class ByteOut {
  /** 256 KiB: a hundred-odd records' lines per write, and never less than one whole line. */
  private static final int SIZE = 256 << 10;

  private static final byte[] NEWLINE = System.lineSeparator().getBytes(UTF_8);

  private final byte[] buffer = new byte[SIZE];
  private int filled;
  private final PrintWriter text;

  /** Bytes into {@link #text}: those of a character cut by a flush wait for the next. */
  private final CharsetDecoder decoder;

  private final ByteBuffer undecoded;
  private final CharBuffer decoded;

  /** Stdout could not be written: the rest is dropped. */
  private boolean failed;

  private ByteOut(PrintWriter text, boolean raw) {
    this.text = text;
    this.decoder =
        raw
            ? null
            : UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
    this.undecoded = raw ? null : ByteBuffer.allocate(SIZE + 8);
    this.decoded = raw ? null : CharBuffer.allocate(SIZE + 8);
  }

  /** Output to {@code out}: straight to the file descriptor when it is kvp's stdout. */
  static ByteOut to(PrintWriter out) {
    out.flush();
    return new ByteOut(out, out instanceof StdoutWriter);
  }

  /** Text as it is, in UTF-8. */
  ByteOut text(String s) {
    return bytes(s.getBytes(UTF_8));
  }

  ByteOut bytes(byte[] b) {
    room(b.length);
    if (b.length > buffer.length) {
      flush();
      writeOut(b, b.length);
    } else {
      System.arraycopy(b, 0, buffer, filled, b.length);
      filled += b.length;
    }
    return this;
  }

  /**
   * Ends a line. Into a writer other than stdout the line is handed on at once, so that it keeps
   * its place among what else is written there (stderr's lines, in a test that reads both).
   */
  ByteOut newline() {
    bytes(NEWLINE);
    if (decoder != null) {
      flush();
    }
    return this;
  }

  /**
   * Pool text as {@link Text#printable} shows it: {@code field}'s bytes (position to limit, left as
   * they are) decoded as UTF-8 (U+FFFD for what is not) with control characters escaped. Plain
   * ASCII, most of a pool, is copied as it stands.
   */
  ByteOut printable(ByteBuffer field) {
    int n = field.remaining();
    // escaped, a byte takes at most 4 ("\x1b"); the slow path's U+FFFD 3
    room(4 * n);
    int at = filled;
    field.get(field.position(), buffer, at, n);
    int end = at + n;
    int i = at;
    while (i < end && buffer[i] >= 0x20 && buffer[i] != 0x7f) {
      i++;
    }
    if (i == end) {
      filled = end;
      return this;
    }
    for (int j = i; j < end; j++) {
      if (buffer[j] < 0) {
        // not ASCII: through the text path, which decodes as a String does
        return bytes(Text.printable(new String(buffer, at, n, UTF_8)).getBytes(UTF_8));
      }
    }
    // ASCII with control characters: escaped from a copy of the rest, in place
    byte[] rest = java.util.Arrays.copyOfRange(buffer, i, end);
    int out = i;
    for (byte b : rest) {
      if (b >= 0x20 && b != 0x7f) {
        buffer[out++] = b;
        continue;
      }
      buffer[out++] = '\\';
      switch (b) {
        case '\n' -> buffer[out++] = 'n';
        case '\r' -> buffer[out++] = 'r';
        case '\t' -> buffer[out++] = 't';
        default -> {
          buffer[out++] = 'x';
          buffer[out++] = (byte) Character.forDigit((b >> 4) & 15, 16);
          buffer[out++] = (byte) Character.forDigit(b & 15, 16);
        }
      }
    }
    filled = out;
    return this;
  }

  /** Makes room for {@code n} more bytes, writing out what is buffered when it lacks. */
  private void room(int n) {
    if (buffer.length - filled < n) {
      flush();
    }
  }

  /** Writes out what is buffered (to the file descriptor, or decoded into the writer). */
  void flush() {
    if (filled > 0) {
      writeOut(buffer, filled);
      filled = 0;
    }
    if (decoder == null) {
      if (!failed) {
        try {
          ((StdoutWriter) text).bytes().flush();
        } catch (IOException e) {
          failed = true;
        }
      }
    } else {
      text.flush();
    }
  }

  private void writeOut(byte[] b, int n) {
    if (decoder == null) {
      if (!failed) {
        try {
          ((StdoutWriter) text).bytes().write(b, 0, n);
        } catch (IOException e) {
          // as a PrintWriter does: a closed pipe (kvp dump | head) ends the output, not the command
          failed = true;
        }
      }
      return;
    }
    int off = 0;
    while (off < n) {
      int take = Math.min(n - off, undecoded.remaining());
      undecoded.put(b, off, take);
      off += take;
      undecoded.flip();
      decoder.decode(undecoded, decoded, false);
      undecoded.compact();
      decoded.flip();
      text.append(decoded);
      decoded.clear();
    }
  }
}
