package dev.kvprov.inspect.spans;

import java.time.Duration;
import java.util.Arrays;

/**
 * Durations counted in buckets 1% wide (in microseconds, each bucket's top 1.01 times the one
 * before), so that a percentile over any number of VMs takes the same few kilobytes: the value
 * given is its bucket's top, at most 1% above the true one, never above the largest seen. The
 * smallest and largest are kept exactly.
 */
final class DurationHistogram {
  private static final double GROWTH = Math.log(1.01);

  /** 1.01^4000 µs is beyond any clock: longer durations share the last bucket. */
  private static final int BUCKETS = 4000;

  private int[] counts = new int[256];
  private long total;
  private Duration min;
  private Duration max;

  void add(Duration given) {
    Duration d = given.isNegative() ? Duration.ZERO : given;
    int bucket = bucket(micros(d));
    if (bucket >= counts.length) {
      counts =
          Arrays.copyOf(counts, Math.min(BUCKETS + 1, Math.max(bucket + 1, counts.length * 2)));
    }
    counts[bucket]++;
    total++;
    if (min == null || d.compareTo(min) < 0) {
      min = d;
    }
    if (max == null || d.compareTo(max) > 0) {
      max = d;
    }
  }

  long count() {
    return total;
  }

  /** The largest duration added; zero when none was. */
  Duration max() {
    return max == null ? Duration.ZERO : max;
  }

  /**
   * The {@code q} quantile (0 &lt; q ≤ 1): the smallest bucket top with at least {@code q} of the
   * durations at or below it, kept between the smallest and the largest seen; zero when empty.
   */
  Duration percentile(double q) {
    if (total == 0) {
      return Duration.ZERO;
    }
    long rank = Math.max(1, (long) Math.ceil(q * total));
    long seen = 0;
    for (int bucket = 0; bucket < counts.length; bucket++) {
      seen += counts[bucket];
      if (seen >= rank) {
        long micros = bucket == 0 ? 0 : (long) Math.ceil(Math.pow(1.01, bucket - 1));
        Duration top = Duration.ofSeconds(micros / 1_000_000, micros % 1_000_000 * 1000);
        return top.compareTo(max) > 0 ? max : (top.compareTo(min) < 0 ? min : top);
      }
    }
    return max;
  }

  private static long micros(Duration d) {
    return d.getSeconds() >= Long.MAX_VALUE / 1_000_000 - 1
        ? Long.MAX_VALUE
        : d.getSeconds() * 1_000_000 + d.getNano() / 1000;
  }

  /**
   * 0 for zero; else 1 + the power of 1.01 that is the smallest at or above {@code micros} (its
   * top).
   */
  static int bucket(long micros) {
    if (micros <= 0) {
      return 0;
    }
    int b = 1 + (int) Math.ceil(Math.log(micros) / GROWTH);
    return Math.min(b, BUCKETS);
  }
}
