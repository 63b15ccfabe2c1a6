package dev.kvprov.inspect.spans;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class DurationHistogramTest {
  @Test
  void percentiles_areAtMostOnePercentAboveTheExactOnes_andNeverBelow() {
    Random random = new Random(7);
    for (int trial = 0; trial < 50; trial++) {
      DurationHistogram histogram = new DurationHistogram();
      List<Long> micros = new ArrayList<>();
      int n = 1 + random.nextInt(3000);
      for (int i = 0; i < n; i++) {
        // from microseconds to minutes, skewed as step times are
        long us = (long) Math.pow(10, 6 * random.nextDouble() + random.nextDouble() * 2);
        micros.add(us);
        histogram.add(Duration.ofNanos(us * 1000));
      }
      Collections.sort(micros);
      for (double q : new double[] {0.5, 0.95, 1.0}) {
        long exact = micros.get((int) Math.ceil(q * n) - 1);
        long given = histogram.percentile(q).toNanos() / 1000;
        assertThat(given).as("q %s of %d", q, n).isBetween(exact, (long) Math.ceil(exact * 1.01));
      }
      assertThat(histogram.max()).isEqualTo(Duration.ofNanos(micros.get(n - 1) * 1000));
    }
  }

  @Test
  void oneDuration_isEveryPercentile_exactly() {
    DurationHistogram histogram = new DurationHistogram();
    histogram.add(Duration.ofMillis(1821));

    assertThat(histogram.percentile(0.5)).isEqualTo(Duration.ofMillis(1821));
    assertThat(histogram.percentile(0.95)).isEqualTo(Duration.ofMillis(1821));
  }

  @Test
  void anyDuration_fitsItsBounded_buckets() {
    DurationHistogram histogram = new DurationHistogram();
    histogram.add(Duration.ofSeconds(Long.MAX_VALUE / 2)); // a damaged clock's centuries
    histogram.add(Duration.ZERO);
    histogram.add(Duration.ofMillis(-5));

    assertThat(DurationHistogram.bucket(Long.MAX_VALUE)).isEqualTo(4000);
    assertThat(histogram.max()).isEqualTo(Duration.ofSeconds(Long.MAX_VALUE / 2));
    assertThat(histogram.count()).isEqualTo(3);
    assertThat(histogram.percentile(0.5)).isEqualTo(Duration.ZERO);
  }
}
