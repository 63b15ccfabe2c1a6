package dev.kvprov.otel;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.fixtures.Trials;
import dev.kvprov.kvp.KvpRecord;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class KvpRecordFormatPropertiesTest {

  @Test
  void encodeThenDecode_isLossless_forAnyNameAttributeOrMessage() {
    Trials.run(
        400,
        r ->
            encodeThenDecodeIsLossless(
                text(r),
                text(r),
                text(r),
                text(r),
                Trials.list(r, 0, 255, e -> Trials.anyString(e, 40)),
                Trials.between(r, Long.MIN_VALUE, Long.MAX_VALUE),
                real(r),
                Trials.list(r, 0, 255, e -> Trials.between(e, Long.MIN_VALUE, Long.MAX_VALUE)),
                Trials.list(r, 0, 255, KvpRecordFormatPropertiesTest::real),
                Trials.list(r, 0, 255, SplittableRandom::nextBoolean),
                Trials.oneOf(r, KvprovRecord.Kind.values()),
                Trials.oneOf(r, KvprovRecord.Level.values())));
  }

  private static void encodeThenDecodeIsLossless(
      String name,
      String message,
      String attributeKey,
      String attributeValue,
      List<String> list,
      long number,
      double real,
      List<Long> numbers,
      List<Double> reals,
      List<Boolean> flags,
      KvprovRecord.Kind kind,
      KvprovRecord.Level level) {
    AttributesBuilder attributes = Attributes.builder();
    if (!attributeKey.isEmpty()) {
      attributes.put(AttributeKey.stringKey(attributeKey), attributeValue);
    }
    attributes
        .put(AttributeKey.stringArrayKey("list"), list)
        .put("number", number)
        .put("real", real)
        .put(AttributeKey.longArrayKey("numbers"), numbers)
        .put(AttributeKey.doubleArrayKey("reals"), reals)
        .put(AttributeKey.booleanArrayKey("flags"), flags)
        .put("flag", !flags.isEmpty() && flags.get(0));
    KvprovRecord record =
        new KvprovRecord(
            kind,
            level,
            "unknown",
            "00f067aa0ba902b7.l0a1b2c3d",
            List.of(
                new KvprovRecord.Field(KvpRecordFormat.NAME, name),
                new KvprovRecord.Field(KvpRecordFormat.BODY, message),
                new KvprovRecord.Field(KvpRecordFormat.SEVERITY, "WARN")),
            attributes.build());

    List<KvpRecord> records = KvpRecordFormat.encode(record);
    KvpRecordFormat.Decoded decoded = KvpRecordFormat.decode(records);

    for (KvpRecord r : records) {
      assertThat(r.key().getBytes(UTF_8).length).isLessThanOrEqualTo(254);
      assertThat(r.value().getBytes(UTF_8).length).isLessThanOrEqualTo(1022);
      assertThat(r.key()).doesNotContain("\0");
      assertThat(r.value()).doesNotContain("\0");
    }
    assertThat(decoded.problems()).isEmpty();
    assertThat(decoded.records()).hasSize(1);
    assertThat(decoded.records().get(0).record()).isEqualTo(record);
  }

  /** Any UTF-16 text: pipes, backslashes, NULs, controls, lone surrogates, emoji, long runs. */
  private static String text(SplittableRandom r) {
    return switch (r.nextInt(4)) {
      case 0, 1 -> mixed(r);
      case 2 -> String.join("", Trials.list(r, 0, 50, e -> Trials.oneOf(e, "😀", "a😀|", "\\|\\")));
      default -> mixed(r).repeat(30);
    };
  }

  /** Up to 200 chars: the formats' special ones (3 in 10), a to z (5 in 10) or any (2 in 10). */
  private static String mixed(SplittableRandom r) {
    int length = Trials.size(r, 0, 200);
    StringBuilder text = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      int pick = r.nextInt(10);
      char c =
          pick < 3
              ? Trials.oneOf(
                  r, '|', '\\', '\0', '\n', '\r', '\t', ':', '=', ',', ' ', '\u007f', '\uD800',
                  '\uDC00', 'é')
              : pick < 8 ? (char) Trials.between(r, 'a', 'z') : (char) r.nextInt(0x10000);
      text.append(c);
    }
    return text.toString();
  }

  /**
   * Any finite double: the edges (zeros, the smallest and largest), two-decimal values as people
   * write them, or any bit pattern that is a number.
   */
  private static double real(SplittableRandom r) {
    return switch (r.nextInt(4)) {
      case 0 ->
          Trials.oneOf(
              r, 0.0, -0.0, 0.01, -0.01, Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE);
      case 1 -> Trials.between(r, -1_000_000_000L, 1_000_000_000L) / 100.0;
      default -> {
        double d;
        do {
          d = Double.longBitsToDouble(r.nextLong());
        } while (!Double.isFinite(d));
        yield d;
      }
    };
  }
}
