package dev.kvprov.agent.http;

import static java.util.Objects.requireNonNull;

import java.net.http.HttpHeaders;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * How long to wait before the next attempt: exponential from {@code initial}, capped at {@code
 * max}, with jitter (a random point in the upper half of the interval) so that a fleet of VMs
 * booted together does not retry in step; never less than a server's {@code Retry-After}.
 *
 * @param initial the first wait
 * @param max the longest single wait
 */
public record Backoff(Duration initial, Duration max) {
  public Backoff {
    requireNonNull(initial, "initial");
    requireNonNull(max, "max");
    if (initial.isNegative() || max.compareTo(initial) < 0) {
      throw new IllegalArgumentException("need 0 <= initial <= max: " + initial + ", " + max);
    }
  }

  /** The wait after failed attempt number {@code attempt} (1 for the first). */
  public Duration delay(int attempt, RandomGenerator random) {
    long base = initial.toNanos();
    for (int i = 1; i < attempt && base < max.toNanos(); i++) {
      base *= 2;
    }
    base = Math.min(base, max.toNanos());
    long half = base / 2;
    return Duration.ofNanos(half + (half > 0 ? random.nextLong(half + 1) : 0));
  }

  /**
   * How long to wait after failed attempt {@code attempt}: the backoff, or the server's {@code
   * Retry-After} if longer. A wait that would reach past the deadline is cut to end with it, and
   * one last attempt follows there: a server that asks for more time than is left gets all of it,
   * not a refusal. Empty once the deadline has passed (time to give up).
   */
  public Optional<Duration> waitBefore(
      int attempt, Optional<Duration> retryAfter, Deadline deadline) {
    if (deadline.expired()) {
      return Optional.empty();
    }
    Duration wait = delay(attempt, java.util.concurrent.ThreadLocalRandom.current());
    if (retryAfter.isPresent() && retryAfter.get().compareTo(wait) > 0) {
      wait = retryAfter.get();
    }
    return Optional.of(deadline.cap(wait));
  }

  /**
   * The server's {@code Retry-After}, in seconds or as an HTTP date; empty when absent or
   * unreadable.
   */
  public static Optional<Duration> retryAfter(HttpHeaders headers) {
    return headers.firstValue("Retry-After").flatMap(Backoff::parseRetryAfter);
  }

  static Optional<Duration> parseRetryAfter(String value) {
    String v = value.trim();
    try {
      long seconds = Long.parseLong(v);
      return seconds < 0 ? Optional.empty() : Optional.of(Duration.ofSeconds(seconds));
    } catch (NumberFormatException notSeconds) {
      try {
        Duration until =
            Duration.between(
                ZonedDateTime.now(), ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME));
        return Optional.of(until.isNegative() ? Duration.ZERO : until);
      } catch (RuntimeException notADate) {
        return Optional.empty();
      }
    }
  }
}
