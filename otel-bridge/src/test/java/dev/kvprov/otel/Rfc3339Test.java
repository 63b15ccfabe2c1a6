package dev.kvprov.otel;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class Rfc3339Test {
  /** Any instant, any fraction length, any offset: the same answer as java.time. */
  @Property(tries = 2000)
  void agreesWithJavaTime(
      @ForAll @LongRange(min = 0, max = 253370764800L) long epochSecond,
      @ForAll @IntRange(min = 0, max = 999_999_999) int nanos,
      @ForAll @IntRange(min = 0, max = 9) int fractionDigits,
      @ForAll @IntRange(min = -18 * 60, max = 18 * 60) int offsetMinutes) {
    OffsetDateTime time =
        Instant.ofEpochSecond(epochSecond, nanos)
            .atOffset(
                ZoneOffset.ofTotalSeconds(Math.min(offsetMinutes, 23 * 60) * 60 % (18 * 3600)));
    String pattern =
        "uuuu-MM-dd'T'HH:mm:ss"
            + (fractionDigits == 0 ? "" : "." + "S".repeat(fractionDigits))
            + "xxx";
    String text = time.format(DateTimeFormatter.ofPattern(pattern));
    String withZ = text.endsWith("+00:00") ? text.substring(0, text.length() - 6) + "Z" : text;

    Instant expected = OffsetDateTime.parse(withZ).toInstant();

    assertThat(Rfc3339.parseOrNull(withZ)).as(withZ).isEqualTo(expected);
  }

  @Test
  void whatIsNotRfc3339_isNull() {
    for (String text :
        new String[] {
          "",
          "2026-11-22",
          "2026-11-22T04:47:46",
          "2026-11-22T04:47:46.1234567890Z",
          "2026-13-22T04:47:46Z",
          "2026-02-30T04:47:46Z",
          "2026-11-22T24:00:00Z",
          "2026-11-22T04:47:46+25:00",
          "2026-11-22 04:47:46Z",
          "２０２６-11-22T04:47:46Z",
          "2026-11-22T04:47:46Zjunk"
        }) {
      assertThat(Rfc3339.parseOrNull(text)).as(text).isNull();
      boolean javaTimeRejects;
      try {
        OffsetDateTime.parse(text);
        javaTimeRejects = false;
      } catch (DateTimeParseException e) {
        javaTimeRejects = true;
      }
      assertThat(javaTimeRejects).as("java.time also rejects %s", text).isTrue();
    }
  }

  @Test
  void aFractionNeedsADigit_thoughJavaTimeTakesNone() {
    assertThat(Rfc3339.parseOrNull("2026-11-22T04:47:46.Z")).isNull();
  }

  @Test
  void theFormsWritersUse() {
    assertThat(Rfc3339.parseOrNull("2026-11-22T04:47:46.422774Z"))
        .isEqualTo(Instant.parse("2026-11-22T04:47:46.422774Z"));
    assertThat(Rfc3339.parseOrNull("2026-11-22T04:47:46.422774+00:00"))
        .isEqualTo(Instant.parse("2026-11-22T04:47:46.422774Z"));
    assertThat(Rfc3339.parseOrNull("2024-06-01t10:00:00.123z"))
        .isEqualTo(Instant.parse("2024-06-01T10:00:00.123Z"));
  }
}
