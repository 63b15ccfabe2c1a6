package dev.kvprov.otel;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.kvp.KvpRecord;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class KvpRecordFormatTest {
  private static final String VM = "00840e55-9be2-d441-a716-446655440000";

  private static KvprovRecord end(String name, Attributes attributes, String... extra) {
    List<KvprovRecord.Field> fields = new ArrayList<>();
    fields.add(new KvprovRecord.Field(KvpRecordFormat.START, "2024-06-01T10:00:00.123Z"));
    fields.add(new KvprovRecord.Field(KvpRecordFormat.END, "2024-06-01T10:00:01.456Z"));
    fields.add(new KvprovRecord.Field(KvpRecordFormat.DURATION, "1.333s"));
    fields.add(new KvprovRecord.Field(KvpRecordFormat.BOOT, "12.345-13.678"));
    fields.add(new KvprovRecord.Field(KvpRecordFormat.STATUS, "ok"));
    fields.add(new KvprovRecord.Field(KvpRecordFormat.TRACE, "4bf92f3577b34da6a3ce929d0e0e4736"));
    fields.add(new KvprovRecord.Field(KvpRecordFormat.SPAN, "00f067aa0ba902b7"));
    fields.add(new KvprovRecord.Field(KvpRecordFormat.PARENT, "53995c3f42cd8ad8"));
    fields.add(new KvprovRecord.Field(KvpRecordFormat.NAME, name));
    for (String e : extra) {
      fields.add(new KvprovRecord.Field(KvpRecordFormat.ERROR, e));
    }
    return new KvprovRecord(
        KvprovRecord.Kind.END, KvprovRecord.Level.INFO, VM, "00f067aa0ba902b7", fields, attributes);
  }

  @Test
  void encode_spanEnd_readsLikeAzureInit_andNamesEverythingInTheKey() {
    KvprovRecord record =
        end(
            "imds.fetch",
            Attributes.builder()
                .put("http.status", 200L)
                .put("url", "http://169.254.169.254/metadata/instance")
                .build());

    List<KvpRecord> records = KvpRecordFormat.encode(record);

    assertThat(records).hasSize(1);
    assertThat(records.get(0).key())
        .isEqualTo("kvprov-1|" + VM + "|INFO|end|imds.fetch|00f067aa0ba902b7");
    assertThat(records.get(0).value())
        .isEqualTo(
            "Start: 2024-06-01T10:00:00.123Z | End: 2024-06-01T10:00:01.456Z | Duration: 1.333s"
                + " | Boot: 12.345-13.678 | Status: ok | Trace: 4bf92f3577b34da6a3ce929d0e0e4736"
                + " | Span: 00f067aa0ba902b7 | Parent: 53995c3f42cd8ad8 | Name: imds.fetch"
                + " | Attr: http.status:int=200"
                + " | Attr: url=http://169.254.169.254/metadata/instance");
  }

  @Test
  void decode_givesBackEveryFieldAndTypedAttribute() {
    Attributes attributes =
        Attributes.builder()
            .put("n", 5L)
            .put("ratio", 0.25)
            .put("ok", true)
            .put(AttributeKey.stringArrayKey("list"), List.of("a,b", "", "c|d"))
            .put(AttributeKey.longArrayKey("codes"), List.of(1L, -2L))
            .put(AttributeKey.stringArrayKey("none"), List.of())
            .put("key=with:odd chars", "x")
            .build();
    KvprovRecord record = end("user.create | \"admin\" \\ é\n", attributes, "boom: exit 9");

    KvpRecordFormat.Decoded decoded = KvpRecordFormat.decode(KvpRecordFormat.encode(record));

    assertThat(decoded.problems()).isEmpty();
    assertThat(decoded.records()).hasSize(1);
    KvprovRecord back = decoded.records().get(0).record();
    assertThat(back).isEqualTo(record);
    assertThat(back.name()).contains("user.create | \"admin\" \\ é\n");
    assertThat(back.start())
        .hasValueSatisfying(i -> assertThat(i.toString()).isEqualTo("2024-06-01T10:00:00.123Z"));
    assertThat(back.sinceBoot())
        .hasValueSatisfying(d -> assertThat(d.toMillis()).isEqualTo(12_345));
    assertThat(back.endSinceBoot())
        .hasValueSatisfying(d -> assertThat(d.toMillis()).isEqualTo(13_678));
    assertThat(back.parentSpanId()).contains("53995c3f42cd8ad8");
    assertThat(back.errorMessage()).contains("boom: exit 9");
  }

  @Test
  void encode_longValue_isChunkedWithinTheHostLimit_andReassembled() {
    String message = "line with | pipes and é and 😀\n".repeat(200);
    KvprovRecord record = end("big", Attributes.of(AttributeKey.stringKey("log"), message));

    List<KvpRecord> records = KvpRecordFormat.encode(record);

    assertThat(records.size()).isGreaterThan(5);
    for (int i = 0; i < records.size(); i++) {
      assertThat(records.get(i).key()).endsWith("|" + i + "/" + records.size());
      assertThat(records.get(i).key().getBytes(UTF_8).length).isLessThanOrEqualTo(254);
      assertThat(records.get(i).value().getBytes(UTF_8).length).isLessThanOrEqualTo(1022);
    }
    List<KvpRecord> shuffled = new ArrayList<>(records);
    java.util.Collections.reverse(shuffled);
    assertThat(KvpRecordFormat.decode(shuffled).records().get(0).record()).isEqualTo(record);
  }

  @Test
  void keyName_ofAnOddOrLongName_isSafeShortAndDeterministic() {
    String odd = "step with spaces|pipes and é";
    String key = KvpRecordFormat.encode(end(odd, Attributes.empty())).get(0).key();
    String again = KvpRecordFormat.encode(end(odd, Attributes.empty())).get(0).key();
    String other = KvpRecordFormat.encode(end(odd + "!", Attributes.empty())).get(0).key();

    assertThat(key).isEqualTo(again).isNotEqualTo(other);
    assertThat(key.split("\\|")[4]).matches("step_with_spaces_pipes_and__~[0-9a-f]{8}");
    String longName = "a".repeat(300);
    String longKey = KvpRecordFormat.encode(end(longName, Attributes.empty())).get(0).key();
    assertThat(longKey.split("\\|")[4]).matches("a{40}~[0-9a-f]{8}");
    assertThat(longKey.getBytes(UTF_8).length).isLessThan(254);
    assertThat(longKey)
        .isEqualTo(new String(longKey.getBytes(UTF_8), java.nio.charset.StandardCharsets.US_ASCII));
  }

  @Test
  void decode_skipsOtherWriters_andReportsDamageWithoutThrowing() {
    List<KvpRecord> records = new ArrayList<>();
    records.add(new KvpRecord("CLOUD_INIT|1|start|x|u", "{}"));
    records.addAll(KvpRecordFormat.encode(end("ok", Attributes.empty())));
    records.add(new KvpRecord("kvprov-1|" + VM + "|INFO|end|x|abc|0/2", "Start: half"));
    records.add(new KvpRecord("kvprov-1|" + VM + "|LOUD|end|x|abc", "Start: x"));
    records.add(new KvpRecord("kvprov-2|" + VM + "|INFO|end|x|abc", "Start: x"));
    records.add(new KvpRecord("kvprov-1|" + VM + "|INFO|end|x|abd", "no label here"));
    records.add(new KvpRecord("kvprov-1|" + VM + "|INFO|end|x|abe", "Attr: n:int=notanumber"));
    records.add(new KvpRecord("kvprov-99999999999|" + VM + "|INFO|end|x|abf", "Start: x"));
    records.add(new KvpRecord("kvprov-1|" + VM + "|INFO|end|x|abg|99999999999/99999999999", "x"));

    KvpRecordFormat.Decoded decoded = KvpRecordFormat.decode(records);

    assertThat(decoded.records())
        .extracting(r -> r.record().recordId())
        .containsExactly("00f067aa0ba902b7", "abe");
    assertThat(decoded.records().get(0).recordIndexes()).containsExactly(1);
    assertThat(decoded.problems())
        .hasSize(7)
        .anyMatch(p -> p.contains("1 of 2 pieces") && p.contains("missing"))
        .anyMatch(p -> p.contains("not a kvprov key"))
        .anyMatch(p -> p.contains("grammar version 2"))
        .anyMatch(p -> p.contains("without a label"))
        .anyMatch(p -> p.contains("unreadable attribute"));
  }
}
