package dev.kvprov.otel;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.kvp.KvpRecord;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class KvpRecordFormatPropertiesTest {

  @Property(tries = 400)
  void encodeThenDecode_isLossless_forAnyNameAttributeOrMessage(
      @ForAll("text") String name,
      @ForAll("text") String message,
      @ForAll("text") String attributeKey,
      @ForAll("text") String attributeValue,
      @ForAll List<@net.jqwik.api.constraints.StringLength(max = 40) String> list,
      @ForAll long number,
      @ForAll double real,
      @ForAll List<Long> numbers,
      @ForAll List<Double> reals,
      @ForAll List<Boolean> flags,
      @ForAll KvprovRecord.Kind kind,
      @ForAll KvprovRecord.Level level) {
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
                new KvprovRecord.Field("Name", name),
                new KvprovRecord.Field("Body", message),
                new KvprovRecord.Field("Severity", "WARN")),
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
  @Provide
  Arbitrary<String> text() {
    Arbitrary<Character> special =
        Arbitraries.of(
            '|', '\\', '\0', '\n', '\r', '\t', ':', '=', ',', ' ', '\u007f', '\uD800', '\uDC00',
            'é');
    Arbitrary<Character> any = Arbitraries.chars();
    Arbitrary<String> mixed =
        Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(3, special),
                net.jqwik.api.Tuple.of(5, Arbitraries.chars().range('a', 'z')),
                net.jqwik.api.Tuple.of(2, any))
            .list()
            .ofMaxSize(200)
            .map(cs -> cs.stream().map(String::valueOf).reduce("", String::concat));
    Arbitrary<String> emoji =
        Arbitraries.of("😀", "a😀|", "\\|\\").list().ofMaxSize(50).map(l -> String.join("", l));
    Arbitrary<String> veryLong = mixed.map(s -> s.repeat(30));
    return Arbitraries.oneOf(mixed, mixed, emoji, veryLong);
  }
}
