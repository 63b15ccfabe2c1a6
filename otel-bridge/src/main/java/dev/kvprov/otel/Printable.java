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
    StringBuilder b = new StringBuilder(text.length() + 8).append(text, 0, i);
    for (; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (Character.isISOControl(c)) {
            b.append("\\x")
                .append(Character.forDigit(c >> 4, 16))
                .append(Character.forDigit(c & 15, 16));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.toString();
  }
}
