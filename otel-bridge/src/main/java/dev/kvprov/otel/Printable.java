package dev.kvprov.otel;

/**
 * Pool text for a terminal: control characters (escape sequences too) made visible, so that a
 * hostile record cannot move the cursor, clear the screen or fake a line of its own.
 */
public final class Printable {
  private Printable() {}

  /** {@code text} with {@code \n}, {@code \r}, {@code \t} and other control characters escaped. */
  public static String of(String text) {
    int i = 0;
    while (i < text.length() && !Character.isISOControl(text.charAt(i))) {
      i++;
    }
    if (i == text.length()) {
      return text;
    }
    // Text between control characters is copied a run at a time: a long multi-line value (a
    // stack trace, a cloud-init message) is most of a big pool's text.
    StringBuilder b = new StringBuilder(text.length() + 8);
    int run = 0;
    for (; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!Character.isISOControl(c)) {
        continue;
      }
      b.append(text, run, i);
      run = i + 1;
      switch (c) {
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default ->
            b.append("\\x")
                .append(Character.forDigit(c >> 4, 16))
                .append(Character.forDigit(c & 15, 16));
      }
    }
    b.append(text, run, text.length());
    return b.toString();
  }
}
