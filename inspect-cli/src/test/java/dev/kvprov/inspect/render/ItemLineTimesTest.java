package dev.kvprov.inspect.render;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** An item's time columns, written by hand, read as the formatter would write them. */
class ItemLineTimesTest {
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("HH:mm:ss.SSS", Locale.ROOT).withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter DAY =
      DateTimeFormatter.ofPattern("yyyy-MM-dd", Locale.ROOT).withZone(ZoneOffset.UTC);

  @Test
  void timeAndDay_areTheFormattersOwn_atTheEdgesAndAnywhere() {
    List<Instant> instants =
        new ArrayList<>(
            List.of(
                Instant.EPOCH,
                Instant.ofEpochSecond(-1, 999_999_999),
                Instant.parse("2026-11-22T04:47:40.2999Z"),
                Instant.parse("2026-12-31T23:59:59.999999999Z"),
                Instant.parse("0001-01-01T00:00:00Z"),
                Instant.parse("0000-12-31T23:59:59.5Z"),
                Instant.parse("9999-12-31T23:59:59.001Z"),
                Instant.parse("+10000-01-01T00:00:00Z"),
                Instant.parse("-0100-06-15T12:00:00Z")));
    Random random = new Random(27);
    for (int i = 0; i < 10_000; i++) {
      instants.add(
          Instant.ofEpochSecond(
              random.nextLong() % 400_000_000_000L, random.nextInt(1_000_000_000)));
    }

    for (Instant at : instants) {
      assertThat(ItemLine.time(at)).as(at.toString()).isEqualTo(TIME.format(at));
      assertThat(ItemLine.day(at)).as(at.toString()).isEqualTo(DAY.format(at));
    }
    assertThat(ItemLine.time(null)).isEmpty();
    assertThat(ItemLine.day((Instant) null)).isNull();
  }
}
