package dev.kvprov.otel;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * Reads RFC 3339 timestamps ({@code 2026-11-22T04:47:46.422774Z}, {@code …+00:00}) by position.
 * Readers of large pools parse several per record; {@code Instant.parse} costs more than all the
 * rest of decoding a record.
 */
public final class Rfc3339 {
  private Rfc3339() {}

  /**
   * The instant, or null when the text is not an RFC 3339 date-time with a UTC offset: {@code
   * YYYY-MM-DDTHH:MM:SS}, an optional fraction of 1 to 9 digits, then {@code Z} or {@code ±HH:MM}.
   */
  public static Instant parseOrNull(CharSequence text) {
    int n = text.length();
    if (n < 20
        || text.charAt(4) != '-'
        || text.charAt(7) != '-'
        || (text.charAt(10) != 'T' && text.charAt(10) != 't')
        || text.charAt(13) != ':'
        || text.charAt(16) != ':') {
      return null;
    }
    int year = digits(text, 0, 4);
    int month = digits(text, 5, 7);
    int day = digits(text, 8, 10);
    int hour = digits(text, 11, 13);
    int minute = digits(text, 14, 16);
    int second = digits(text, 17, 19);
    int at = 19;
    int nanos = 0;
    if (text.charAt(at) == '.') {
      int from = ++at;
      while (at < n && at - from < 9 && isDigit(text.charAt(at))) {
        nanos = nanos * 10 + (text.charAt(at++) - '0');
      }
      if (at == from || (at < n && isDigit(text.charAt(at)))) {
        return null;
      }
      for (int i = at - from; i < 9; i++) {
        nanos *= 10;
      }
    }
    int offsetSeconds;
    if (at == n - 1 && (text.charAt(at) == 'Z' || text.charAt(at) == 'z')) {
      offsetSeconds = 0;
    } else if (at == n - 6
        && (text.charAt(at) == '+' || text.charAt(at) == '-')
        && text.charAt(at + 3) == ':') {
      int hours = digits(text, at + 1, at + 3);
      int minutes = digits(text, at + 4, at + 6);
      if (hours < 0 || minutes < 0 || hours > 23 || minutes > 59) {
        return null;
      }
      offsetSeconds = (text.charAt(at) == '-' ? -1 : 1) * (hours * 3600 + minutes * 60);
    } else {
      return null;
    }
    if ((year | month | day | hour | minute | second) < 0) {
      return null;
    }
    try {
      // RFC 3339 allows a leap second (:60); like Instant.parse, take it as the next second.
      boolean leap = second == 60;
      LocalDateTime time =
          LocalDateTime.of(year, month, day, hour, minute, leap ? 59 : second, nanos);
      return time.toInstant(ZoneOffset.ofTotalSeconds(offsetSeconds)).plusSeconds(leap ? 1 : 0);
    } catch (DateTimeException e) {
      return null;
    }
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  /** The number written in {@code [from, to)}, or -1 if any of it is not a digit. */
  private static int digits(CharSequence text, int from, int to) {
    int value = 0;
    for (int i = from; i < to; i++) {
      char c = text.charAt(i);
      if (!isDigit(c)) {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }
}
