package dev.kvprov.otel;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A duration as people type it on a command line: {@code 200ms}, {@code 30s}, {@code 5m}, {@code
 * 1h}.
 */
public final class HumanDuration {
  // Six digits at most: even 999999h stays within the nanosecond arithmetic of a wait loop.
  private static final Pattern DURATION = Pattern.compile("(\\d{1,6})(ms|s|m|h)?");

  private HumanDuration() {}

  /**
   * {@code text} as a duration; a bare number is seconds.
   *
   * @throws IllegalArgumentException saying what is accepted
   */
  public static Duration parse(String text) {
    Matcher m = DURATION.matcher(text);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "'" + text + "' is not a duration: give e.g. 200ms, 30s, 5m or 1h");
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "s" : m.group(2);
    return switch (unit) {
      case "ms" -> Duration.ofMillis(n);
      case "m" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      default -> Duration.ofSeconds(n);
    };
  }
}
