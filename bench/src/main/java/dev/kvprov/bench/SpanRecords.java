package dev.kvprov.bench;

import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.otel.KvpRecordFormat;
import dev.kvprov.otel.KvprovRecord;
import io.opentelemetry.api.common.Attributes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * kvprov's span and log records as the agent writes them, for made-up boots: each is stamped with a
 * clock the generator moves on, so that durations and boot-relative times agree.
 */
final class SpanRecords {
  /** A span begun and not yet ended: what its end record repeats. */
  record Open(String trace, String id, String parent, String name, Instant start, double boot) {}

  private final String vm;
  private final List<KvpRecord> out;
  private Instant clock;
  private double sinceBoot;

  SpanRecords(String vm, Instant clock, double sinceBoot, List<KvpRecord> out) {
    this.vm = vm;
    this.clock = clock;
    this.sinceBoot = sinceBoot;
    this.out = out;
  }

  Instant now() {
    return clock;
  }

  void advance(long millis) {
    clock = clock.plus(Duration.ofMillis(millis));
    sinceBoot += millis / 1000.0;
  }

  Open start(String trace, String id, String parent, String name) {
    List<KvprovRecord.Field> fields = new ArrayList<>();
    fields.add(new KvprovRecord.Field(KvpRecordFormat.START, clock.toString()));
    fields.add(new KvprovRecord.Field(KvpRecordFormat.BOOT, seconds(sinceBoot)));
    ids(fields, trace, id, parent, name);
    add(KvprovRecord.Kind.START, KvprovRecord.Level.INFO, id, fields, Attributes.empty());
    return new Open(trace, id, parent, name, clock, sinceBoot);
  }

  /** Ends {@code span} now: ok when {@code error} is null, failed with it otherwise. */
  void end(Open span, String error, Attributes attributes) {
    List<KvprovRecord.Field> fields = new ArrayList<>();
    fields.add(new KvprovRecord.Field(KvpRecordFormat.START, span.start().toString()));
    fields.add(new KvprovRecord.Field(KvpRecordFormat.END, clock.toString()));
    fields.add(
        new KvprovRecord.Field(
            KvpRecordFormat.BOOT, seconds(span.boot()) + "-" + seconds(sinceBoot)));
    fields.add(new KvprovRecord.Field(KvpRecordFormat.STATUS, error == null ? "ok" : "error"));
    if (error != null) {
      fields.add(new KvprovRecord.Field(KvpRecordFormat.ERROR, error));
    }
    ids(fields, span.trace(), span.id(), span.parent(), span.name());
    add(
        KvprovRecord.Kind.END,
        error == null ? KvprovRecord.Level.INFO : KvprovRecord.Level.ERROR,
        span.id(),
        fields,
        attributes);
  }

  /** An INFO log record in {@code span}, with its own record id {@code id}. */
  void log(String trace, String span, String id, String body) {
    List<KvprovRecord.Field> fields = new ArrayList<>();
    fields.add(new KvprovRecord.Field(KvpRecordFormat.TIME, clock.toString()));
    fields.add(new KvprovRecord.Field(KvpRecordFormat.TRACE, trace));
    fields.add(new KvprovRecord.Field(KvpRecordFormat.SPAN, span));
    fields.add(new KvprovRecord.Field(KvpRecordFormat.NAME, "dev.kvprov.agent"));
    fields.add(new KvprovRecord.Field(KvpRecordFormat.SEVERITY, "INFO"));
    fields.add(new KvprovRecord.Field(KvpRecordFormat.BODY, body));
    add(KvprovRecord.Kind.LOG, KvprovRecord.Level.INFO, id, fields, Attributes.empty());
  }

  private void add(
      KvprovRecord.Kind kind,
      KvprovRecord.Level level,
      String id,
      List<KvprovRecord.Field> fields,
      Attributes attributes) {
    out.addAll(KvpRecordFormat.encode(new KvprovRecord(kind, level, vm, id, fields, attributes)));
  }

  private static void ids(
      List<KvprovRecord.Field> fields, String trace, String id, String parent, String name) {
    fields.add(new KvprovRecord.Field(KvpRecordFormat.TRACE, trace));
    fields.add(new KvprovRecord.Field(KvpRecordFormat.SPAN, id));
    if (parent != null) {
      fields.add(new KvprovRecord.Field(KvpRecordFormat.PARENT, parent));
    }
    fields.add(new KvprovRecord.Field(KvpRecordFormat.NAME, name));
  }

  private static String seconds(double s) {
    return String.format(Locale.ROOT, "%.3f", s);
  }
}
