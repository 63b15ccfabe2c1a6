package dev.kvprov.inspect.bundle;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.io.OutputStream;
import java.io.Writer;
import java.util.function.UnaryOperator;

/**
 * Text on its way into a file of the bundle: each line passed through {@code perLine} (user names
 * replaced, colours taken out) and written out at once, up to {@code cap} bytes; past it, one note
 * that it was cut. A command's output of any length is so never held whole.
 */
final class PartWriter extends Writer {
  /** A line longer than this (a page's inline data) is passed on in pieces. */
  private static final int MAX_LINE_CHARS = 1 << 20;

  private final OutputStream out;
  private final UnaryOperator<String> perLine;
  private final long cap;
  private final StringBuilder line = new StringBuilder();
  private long written;
  private boolean cut;

  public PartWriter(OutputStream out, UnaryOperator<String> perLine, long cap) {
    this.out = out;
    this.perLine = perLine;
    this.cap = cap;
  }

  @Override
  public void write(char[] chars, int offset, int length) throws IOException {
    for (int i = offset; i < offset + length; i++) {
      line.append(chars[i]);
      if (chars[i] == '\n') {
        emit(line.length());
      } else if (line.length() >= MAX_LINE_CHARS) {
        emit(pieceEnd());
      }
    }
  }

  /**
   * Where a piece of an over-long line may end: after the last character that cannot be part of a
   * name, so that no name is cut in two and missed by {@code perLine}.
   */
  private int pieceEnd() {
    for (int i = line.length() - 1; i > 0; i--) {
      char c = line.charAt(i);
      if (!Character.isLetterOrDigit(c) && c != '_' && c != '.' && c != '-') {
        return i + 1;
      }
    }
    return line.length();
  }

  private void emit(int end) throws IOException {
    String text = perLine.apply(line.substring(0, end));
    line.delete(0, end);
    if (cut) {
      return;
    }
    byte[] bytes = text.getBytes(UTF_8);
    if (written + bytes.length > cap) {
      cut = true;
      out.write(("\n[cut at " + (cap >> 20) + " MiB]\n").getBytes(UTF_8));
      return;
    }
    out.write(bytes);
    written += bytes.length;
  }

  /** Whether the text went past the cap and was cut. */
  public boolean cut() {
    return cut;
  }

  @Override
  public void flush() throws IOException {
    out.flush();
  }

  /** Passes on the last line, even without its line break; does not close the stream below. */
  @Override
  public void close() throws IOException {
    if (!line.isEmpty()) {
      emit(line.length());
    }
    out.flush();
  }
}
