package dev.kvprov.agent.ovf;

import dev.kvprov.otel.Redactor;
import java.util.Arrays;

/**
 * A secret held as characters that can be wiped ({@link #clear()}), never as a String that would
 * linger in the heap. {@code toString} never shows it.
 */
public final class Secret implements AutoCloseable {
  private final char[] chars;
  private boolean cleared;

  Secret(char[] chars) {
    this.chars = chars;
  }

  /** The characters; a copy the caller must wipe too. */
  public synchronized char[] copy() {
    if (cleared) {
      throw new IllegalStateException("the secret was cleared");
    }
    return Arrays.copyOf(chars, chars.length);
  }

  /** From now on, every sink of {@code redactor}'s telemetry masks this secret. */
  public void maskIn(Redactor redactor) {
    char[] chars = copy();
    try {
      redactor.register(new String(chars));
    } finally {
      Arrays.fill(chars, '\0');
    }
  }

  public synchronized int length() {
    return chars.length;
  }

  /** Overwrites the characters; later reads fail. */
  public synchronized void clear() {
    Arrays.fill(chars, '\0');
    cleared = true;
  }

  @Override
  public void close() {
    clear();
  }

  @Override
  public String toString() {
    return "Secret[" + (cleared ? "cleared" : chars.length + " chars") + "]";
  }
}
