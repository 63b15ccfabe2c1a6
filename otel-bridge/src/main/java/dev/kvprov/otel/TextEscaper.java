package dev.kvprov.otel;

/**
 * The escaping of free text inside a record value: a backslash, the field separator {@code |},
 * control characters and unpaired surrogates (which have no UTF-8 form) are written as backslash
 * sequences; everything else, non-ASCII included, stays as it is so the pool reads well in {@code
 * strings}.
 */
final class TextEscaper {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private TextEscaper() {}

  /** Escapes {@code text}, and also each character of {@code extra} as backslash + character. */
  static void escape(String text, String extra, StringBuilder out) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '\\' -> out.append("\\\\");
        case '|' -> out.append("\\|");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\0' -> out.append("\\0");
        default -> {
          if (c < 0x20 || c == 0x7f) {
            out.append("\\x").append(HEX[c >> 4]).append(HEX[c & 0xf]);
          } else if (Character.isHighSurrogate(c)
              && i + 1 < text.length()
              && Character.isLowSurrogate(text.charAt(i + 1))) {
            out.append(c).append(text.charAt(++i));
          } else if (Character.isSurrogate(c)) {
            out.append("\\u")
                .append(HEX[c >> 12])
                .append(HEX[(c >> 8) & 0xf])
                .append(HEX[(c >> 4) & 0xf])
                .append(HEX[c & 0xf]);
          } else if (extra.indexOf(c) >= 0) {
            out.append('\\').append(c);
          } else {
            out.append(c);
          }
        }
      }
    }
  }

  static String escape(String text) {
    StringBuilder out = new StringBuilder(text.length() + 8);
    escape(text, "", out);
    return out.toString();
  }

  /**
   * Undoes {@link #escape} on {@code text[from, to)}. Tolerant: an unknown or cut-off escape stands
   * for the characters written.
   */
  static String unescape(String text, int from, int to) {
    if (text.indexOf('\\', from) < 0 || text.indexOf('\\', from) >= to) {
      return text.substring(from, to);
    }
    StringBuilder out = new StringBuilder(to - from);
    for (int i = from; i < to; i++) {
      char c = text.charAt(i);
      if (c != '\\' || i + 1 >= to) {
        out.append(c);
        continue;
      }
      char e = text.charAt(++i);
      switch (e) {
        case 'n' -> out.append('\n');
        case 'r' -> out.append('\r');
        case 't' -> out.append('\t');
        case '0' -> out.append('\0');
        case 'x' -> i = hex(text, i, to, 2, out);
        case 'u' -> i = hex(text, i, to, 4, out);
        default -> out.append(e);
      }
    }
    return out.toString();
  }

  private static int hex(String text, int at, int to, int digits, StringBuilder out) {
    if (at + digits < to) {
      try {
        out.append((char) Integer.parseInt(text.substring(at + 1, at + 1 + digits), 16));
        return at + digits;
      } catch (NumberFormatException e) {
        // fall through: keep what was written
      }
    }
    out.append('\\').append(text.charAt(at));
    return at;
  }

  /** The index of the next {@code c} at or after {@code from} that is not escaped, or -1. */
  static int indexOfUnescaped(String text, char c, int from, int to) {
    for (int i = from; i < to; i++) {
      char x = text.charAt(i);
      if (x == '\\') {
        i++;
      } else if (x == c) {
        return i;
      }
    }
    return -1;
  }
}
