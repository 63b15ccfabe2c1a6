package dev.kvprov.otel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.fixtures.Trials;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import org.junit.jupiter.api.Test;

class Rfc3339Test {
  /** Any instant, any fraction length, any offset: the same answer as java.time. */
  @Test
  void agreesWithJavaTime() {
    Trials.run(
        2000,
        r ->
            agreesWithJavaTime(
                Trials.between(r, 0, 253370764800L),
                Trials.between(r, 0, 999_999_999),
                Trials.between(r, 0, 9),
                Trials.between(r, -18 * 60, 18 * 60)));
  }

  private static void agreesWithJavaTime(
      long epochSecond, int nanos, int fractionDigits, int offsetMinutes) {
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
