package dev.kvprov.inspect.text;

import java.time.Duration;

/**
 * Pool text and numbers for people: control characters made visible, seconds with three decimals.
 * Written by hand rather than with {@code String.format}: a large pool prints a line per span.
 */
public final class Text {
  private Text() {}

  /** Pool text for a terminal: control characters (escape sequences too) made visible. */
  public static String printable(String text) {
    return dev.kvprov.otel.Printable.of(text);
  }

  /** {@code 1.234s}, right-aligned to {@code width} characters (the {@code s} included). */
  public static String seconds(Duration d, int width) {
    return padLeft(secondsValue(d) + "s", width);
  }

  /** {@code +1.234s}, right-aligned to {@code width} characters. */
  public static String signedSeconds(Duration d, int width) {
    String value = secondsValue(d);
    return padLeft((value.startsWith("-") ? "" : "+") + value + "s", width);
  }

  /** Seconds with three decimals, rounded half up to the millisecond: -0.002, 12.345. */
  public static String secondsValue(Duration d) {
    boolean negative = d.isNegative();
    Duration abs = d.abs();
    // seconds and nanos apart: a damaged pool may span centuries, beyond a long of nanoseconds
    long millis = abs.getNano() / 1_000_000 + (abs.getNano() % 1_000_000 >= 500_000 ? 1 : 0);
    long seconds = abs.getSeconds() + millis / 1000;
    long fraction = millis % 1000;
    return (negative && (seconds > 0 || fraction > 0) ? "-" : "")
        + seconds
        + "."
        + (fraction < 100 ? (fraction < 10 ? "00" : "0") : "")
        + fraction;
  }

  /** Milliseconds as a double, for JSON: safe for any span a pool can hold. */
  public static double millis(Duration d) {
    return d.getSeconds() * 1e3 + d.getNano() / 1e6;
  }

  /** At most {@code width} characters (code points): a longer text ends in {@code …}. */
  public static String cut(String text, int width) {
    if (text.codePointCount(0, text.length()) <= width) {
      return text;
    }
    return text.substring(0, text.offsetByCodePoints(0, Math.max(width - 1, 0))) + "…";
  }

  public static String padLeft(String s, int width) {
    return s.length() >= width ? s : " ".repeat(width - s.length()) + s;
  }

  public static String padRight(String s, int width) {
    return s.length() >= width ? s : s + " ".repeat(width - s.length());
  }

  /** Fewer columns than this beside a head, and the text goes under it instead. */
  static final int NARROWEST_TEXT = 24;

  /**
   * The one way kvp's views wrap: {@code head} then {@code text}, in lines of at most {@code width}
   * characters, broken at words; continuation lines start under the text's first character. When
   * that leaves fewer than {@value #NARROWEST_TEXT} columns, the head stands alone and the text
   * follows on lines of its own, {@code under} columns in. Nothing is cut. With a width of {@link
   * Integer#MAX_VALUE} (no terminal: a pipe, a file), one line, whole.
   *
   * @param head what the text stands beside (columns, a name): no control characters
   * @param under where continuation lines start when the text does not fit beside the head
   */
  public static java.util.List<String> hang(String head, String text, int width, int under) {
    if (width == Integer.MAX_VALUE) {
      return java.util.List.of(head + text);
    }
    java.util.List<String> lines = new java.util.ArrayList<>();
    int beside = head.codePointCount(0, head.length());
    if (width - beside >= NARROWEST_TEXT) {
      String margin = " ".repeat(beside);
      java.util.List<String> wrapped = wrap(text, width - beside, width - beside);
      lines.add(head + wrapped.get(0));
      wrapped.subList(1, wrapped.size()).forEach(w -> lines.add(margin + w));
      return lines;
    }
    int indent = Math.max(0, Math.min(under, width - NARROWEST_TEXT));
    String margin = " ".repeat(indent);
    lines.add(head.stripTrailing());
    if (!text.isEmpty()) {
      int rest = Math.max(width - indent, 1);
      wrap(text, rest, rest).forEach(w -> lines.add(margin + w));
    }
    return lines;
  }

  /**
   * {@code text} in lines at word boundaries: the first at most {@code first} characters (code
   * points), the others at most {@code rest}; a word longer than a line is cut across lines. Always
   * at least one line.
   */
  public static java.util.List<String> wrap(String text, int first, int rest) {
    java.util.List<String> lines = new java.util.ArrayList<>();
    int width = Math.max(first, 1);
    int at = 0;
    int length = text.length();
    while (true) {
      while (at < length && text.charAt(at) == ' ' && !lines.isEmpty()) {
        at++; // a line does not start with the space it broke at
      }
      int remaining = text.codePointCount(at, length);
      if (remaining <= width) {
        lines.add(text.substring(at));
        return lines;
      }
      int limit = text.offsetByCodePoints(at, width); // the first character that does not fit
      int cut = text.lastIndexOf(' ', limit);
      if (cut <= at) {
        cut = limit; // one word longer than the line
      }
      int end = cut;
      while (end > at && text.charAt(end - 1) == ' ') {
        end--; // nor end with it (other white space is text, and stays)
      }
      lines.add(text.substring(at, end));
      at = cut;
      width = Math.max(rest, 1);
    }
  }
}
