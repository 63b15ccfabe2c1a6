package dev.kvprov.inspect;

import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.otel.KvpRecordFormat;
import dev.kvprov.otel.KvprovRecord;
import io.opentelemetry.api.common.Attributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * kvprov span-end records written field by field in our own format, for pools the agent could not
 * produce itself: spans that last centuries, chains thousands of spans deep.
 */
public final class KvprovSpanRecords {
  static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";

  private KvprovSpanRecords() {}

  /** The span id of the {@code i}th span: 16 hex digits, never all zero. */
  public static String spanId(int i) {
    return String.format("%016x", i + 1L);
  }

  /**
   * The start record of a span, with its start time as written; {@code parentId} null for a root.
   */
  public static List<KvpRecord> start(String spanId, String parentId, String name, String start) {
    return span(
        KvprovRecord.Kind.START,
        spanId,
        parentId,
        name,
        List.of(new KvprovRecord.Field(KvpRecordFormat.START, start)));
  }

  /**
   * The end record of a finished span, with the times as written (RFC 3339, any year the format
   * holds) and no {@code Boot} field; {@code parentId} null for a root.
   */
  public static List<KvpRecord> end(
      String spanId, String parentId, String name, String start, String end) {
    return span(
        KvprovRecord.Kind.END,
        spanId,
        parentId,
        name,
        List.of(
            new KvprovRecord.Field(KvpRecordFormat.START, start),
            new KvprovRecord.Field(KvpRecordFormat.END, end),
            new KvprovRecord.Field(KvpRecordFormat.STATUS, "ok")));
  }

  /**
   * The end record of a span that failed ({@code error} not null: its error) or not, with its
   * attributes, as the agent writes it.
   */
  public static List<KvpRecord> end(
      String spanId,
      String parentId,
      String name,
      String start,
      String end,
      String error,
      Attributes attributes) {
    List<KvprovRecord.Field> fields = new ArrayList<>();
    fields.add(new KvprovRecord.Field(KvpRecordFormat.START, start));
    fields.add(new KvprovRecord.Field(KvpRecordFormat.END, end));
    fields.add(new KvprovRecord.Field(KvpRecordFormat.STATUS, error == null ? "ok" : "error"));
    if (error != null) {
      fields.add(new KvprovRecord.Field(KvpRecordFormat.ERROR, error));
    }
    return span(
        KvprovRecord.Kind.END,
        error == null ? KvprovRecord.Level.INFO : KvprovRecord.Level.ERROR,
        spanId,
        parentId,
        name,
        fields,
        attributes);
  }

  private static List<KvpRecord> span(
      KvprovRecord.Kind kind,
      String spanId,
      String parentId,
      String name,
      List<KvprovRecord.Field> times) {
    return span(kind, KvprovRecord.Level.INFO, spanId, parentId, name, times, Attributes.empty());
  }

  private static List<KvpRecord> span(
      KvprovRecord.Kind kind,
      KvprovRecord.Level level,
      String spanId,
      String parentId,
      String name,
      List<KvprovRecord.Field> times,
      Attributes attributes) {
    List<KvprovRecord.Field> fields = new ArrayList<>(times);
    fields.add(new KvprovRecord.Field(KvpRecordFormat.TRACE, TRACE_ID));
    fields.add(new KvprovRecord.Field(KvpRecordFormat.SPAN, spanId));
    if (parentId != null) {
      fields.add(new KvprovRecord.Field(KvpRecordFormat.PARENT, parentId));
    }
    fields.add(new KvprovRecord.Field(KvpRecordFormat.NAME, name));
    return KvpRecordFormat.encode(
        new KvprovRecord(kind, level, "unknown", spanId, fields, attributes));
  }

  /**
   * A chain of {@code depth} spans, each the only child of the one before ({@code s0} the root),
   * each starting a millisecond after its parent and ending a millisecond before it.
   */
  public static List<KvpRecord> chain(int depth, Instant t0) {
    List<KvpRecord> records = new ArrayList<>(depth);
    for (int i = 0; i < depth; i++) {
      records.addAll(
          end(
              spanId(i),
              i == 0 ? null : spanId(i - 1),
              "s" + i,
              t0.plusMillis(i).toString(),
              t0.plusMillis(2L * depth - i).toString()));
    }
    return records;
  }

  /**
   * Two root spans as long as the format allows: 2026-11-22T04:40:00Z to 2500, and the whole of
   * years 0000 to 9999 (beyond a long of nanoseconds).
   */
  public static List<KvpRecord> overCenturies() {
    List<KvpRecord> records = new ArrayList<>();
    records.addAll(
        end(spanId(0), null, "centuries", "2026-11-22T04:40:00Z", "2500-01-01T00:00:00Z"));
    records.addAll(
        end(
            spanId(1),
            null,
            "all-of-time",
            "0000-01-01T00:00:00Z",
            "9999-12-31T23:59:59.999999999Z"));
    return records;
  }
}
