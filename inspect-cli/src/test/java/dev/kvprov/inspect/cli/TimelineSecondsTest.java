package dev.kvprov.inspect.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** A timeline's times and durations read as {@code %+.3f} and {@code %.3f} wrote them. */
class TimelineSecondsTest {
  @Test
  void aTimeJustBeforeTheBoot_keepsItsMinus_evenRoundedToZero() {
    assertThat(TimelineCommand.seconds(Duration.ofNanos(-400_000), "+")).isEqualTo("-0.000s");
    assertThat(TimelineCommand.seconds(Duration.ofNanos(400_000), "+")).isEqualTo("+0.000s");
    assertThat(TimelineCommand.seconds(Duration.ZERO, "+")).isEqualTo("+0.000s");
    assertThat(TimelineCommand.seconds(Duration.ofNanos(-400_000), "")).isEqualTo("-0.000s");
  }

  /**
   * As {@code %+.3f} writes the exact value (half up): the old code formatted a double, which
   * rounded some halves down (-4.4255 held as -4.42549999…); the value is now taken exactly.
   */
  @Test
  void asStringFormatWritesTheExactValue() {
    for (long millis = -5_000; millis <= 5_000; millis += 7) {
      for (long nanos : new long[] {0, 400_000, 499_999, 500_000, 999_999}) {
        Duration d = Duration.ofMillis(millis).plusNanos(nanos);
        BigDecimal exact =
            BigDecimal.valueOf(d.getSeconds()).add(BigDecimal.valueOf(d.getNano(), 9));
        assertThat(TimelineCommand.seconds(d, "+"))
            .as("%s", d)
            .isEqualTo(String.format(Locale.ROOT, "%+.3fs", exact));
      }
    }
  }
}
