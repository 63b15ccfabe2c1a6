package dev.kvprov.otel;

import static dev.kvprov.otel.KvpRecordFormat.BODY;
import static dev.kvprov.otel.KvpRecordFormat.BOOT;
import static dev.kvprov.otel.KvpRecordFormat.DURATION;
import static dev.kvprov.otel.KvpRecordFormat.END;
import static dev.kvprov.otel.KvpRecordFormat.ERROR;
import static dev.kvprov.otel.KvpRecordFormat.EVENT;
import static dev.kvprov.otel.KvpRecordFormat.NAME;
import static dev.kvprov.otel.KvpRecordFormat.PARENT;
import static dev.kvprov.otel.KvpRecordFormat.SEVERITY;
import static dev.kvprov.otel.KvpRecordFormat.SPAN;
import static dev.kvprov.otel.KvpRecordFormat.START;
import static dev.kvprov.otel.KvpRecordFormat.STATUS;
import static dev.kvprov.otel.KvpRecordFormat.TIME;
import static dev.kvprov.otel.KvpRecordFormat.TRACE;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.Value;
import io.opentelemetry.api.logs.Severity;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.logs.data.LogRecordData;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Turns spans, span events and log records into {@link KvprovRecord}s: the fields of the grammar,
 * redacted, with times in UTC milliseconds and seconds since boot.
 */
final class SpanRecords {
  private static final DateTimeFormatter RFC_3339_MILLIS =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'", Locale.ROOT)
          .withZone(ZoneOffset.UTC);

  private final String vmId;
  private final Redactor redactor;
  private final BootAnchoredClock clock;

  SpanRecords(String vmId, Redactor redactor, BootAnchoredClock clock) {
    this.vmId = vmId;
    this.redactor = redactor;
    this.clock = clock;
  }

  Redactor redactor() {
    return redactor;
  }

  KvprovRecord start(SpanData span) {
    List<KvprovRecord.Field> fields = new ArrayList<>();
    fields.add(field(START, time(span.getStartEpochNanos())));
    boot(span.getStartEpochNanos()).ifPresent(b -> fields.add(field(BOOT, seconds(b))));
    ids(span.getSpanContext(), span.getParentSpanContext(), fields);
    fields.add(field(NAME, redactor.redact(span.getName())));
    return new KvprovRecord(
        KvprovRecord.Kind.START,
        KvprovRecord.Level.INFO,
        vmId,
        span.getSpanId(),
        fields,
        redactor.redact(span.getAttributes()));
  }

  KvprovRecord end(SpanData span) {
    boolean failed = span.getStatus().getStatusCode() == StatusCode.ERROR;
    List<KvprovRecord.Field> fields = new ArrayList<>();
    fields.add(field(START, time(span.getStartEpochNanos())));
    fields.add(field(END, time(span.getEndEpochNanos())));
    fields.add(field(DURATION, seconds(span.getEndEpochNanos() - span.getStartEpochNanos()) + "s"));
    OptionalLong bootStart = boot(span.getStartEpochNanos());
    if (bootStart.isPresent()) {
      fields.add(
          field(
              BOOT,
              seconds(bootStart.getAsLong())
                  + "-"
                  + seconds(boot(span.getEndEpochNanos()).getAsLong())));
    }
    fields.add(field(STATUS, span.getStatus().getStatusCode().name().toLowerCase(Locale.ROOT)));
    if (failed && !span.getStatus().getDescription().isEmpty()) {
      fields.add(field(ERROR, redactor.redact(span.getStatus().getDescription())));
    }
    ids(span.getSpanContext(), span.getParentSpanContext(), fields);
    fields.add(field(NAME, redactor.redact(span.getName())));
    return new KvprovRecord(
        KvprovRecord.Kind.END,
        endLevel(span),
        vmId,
        span.getSpanId(),
        fields,
        redactor.redact(span.getAttributes()));
  }

  List<KvprovRecord> events(SpanData span) {
    List<KvprovRecord> out = new ArrayList<>(span.getEvents().size());
    int n = 0;
    for (EventData event : span.getEvents()) {
      List<KvprovRecord.Field> fields = new ArrayList<>();
      fields.add(field(TIME, time(event.getEpochNanos())));
      boot(event.getEpochNanos()).ifPresent(b -> fields.add(field(BOOT, seconds(b))));
      ids(span.getSpanContext(), SpanContext.getInvalid(), fields);
      fields.add(field(NAME, redactor.redact(span.getName())));
      fields.add(field(EVENT, redactor.redact(event.getName())));
      out.add(
          new KvprovRecord(
              KvprovRecord.Kind.EVENT,
              eventLevel(event),
              vmId,
              span.getSpanId() + ".e" + n++,
              fields,
              redactor.redact(event.getAttributes())));
    }
    return out;
  }

  KvprovRecord log(LogRecordData log) {
    long at =
        log.getTimestampEpochNanos() != 0
            ? log.getTimestampEpochNanos()
            : log.getObservedTimestampEpochNanos();
    List<KvprovRecord.Field> fields = new ArrayList<>();
    fields.add(field(TIME, time(at)));
    boot(at).ifPresent(b -> fields.add(field(BOOT, seconds(b))));
    SpanContext context = log.getSpanContext();
    String recordId;
    if (context.isValid()) {
      ids(context, SpanContext.getInvalid(), fields);
      recordId = context.getSpanId() + ".l" + randomHex(8);
    } else {
      recordId = "l" + randomHex(16);
    }
    fields.add(field(NAME, log.getInstrumentationScopeInfo().getName()));
    fields.add(field(SEVERITY, severityText(log)));
    Value<?> body = redactor.redact(log.getBodyValue());
    fields.add(field(BODY, body == null ? "" : body.asString()));
    return new KvprovRecord(
        KvprovRecord.Kind.LOG,
        level(log.getSeverity()),
        vmId,
        recordId,
        fields,
        redactor.redact(log.getAttributes()));
  }

  KvprovRecord dropped(String recordId, String counts) {
    return new KvprovRecord(
        KvprovRecord.Kind.DROPPED,
        KvprovRecord.Level.WARN,
        vmId,
        recordId,
        List.of(field(KvpRecordFormat.DROPPED, counts)),
        Attributes.empty());
  }

  /**
   * A span end's level: ERROR when it failed, WARN when it ended with a {@link
   * KvprovAttributes#WARNING warning}, INFO otherwise.
   */
  static KvprovRecord.Level endLevel(SpanData span) {
    if (span.getStatus().getStatusCode() == StatusCode.ERROR) {
      return KvprovRecord.Level.ERROR;
    }
    return span.getAttributes().get(KvprovAttributes.WARNING) != null
        ? KvprovRecord.Level.WARN
        : KvprovRecord.Level.INFO;
  }

  static KvprovRecord.Level eventLevel(EventData event) {
    String level = event.getAttributes().get(KvprovAttributes.LEVEL);
    if (level != null) {
      try {
        return KvprovRecord.Level.valueOf(level.toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException ignored) {
        // an unknown level reads as INFO
      }
    }
    return event.getName().equals("exception") ? KvprovRecord.Level.ERROR : KvprovRecord.Level.INFO;
  }

  static KvprovRecord.Level level(Severity severity) {
    int n = severity.getSeverityNumber();
    if (n == 0) {
      return KvprovRecord.Level.INFO;
    }
    if (n < Severity.INFO.getSeverityNumber()) {
      return KvprovRecord.Level.DEBUG;
    }
    if (n < Severity.WARN.getSeverityNumber()) {
      return KvprovRecord.Level.INFO;
    }
    return n < Severity.ERROR.getSeverityNumber()
        ? KvprovRecord.Level.WARN
        : KvprovRecord.Level.ERROR;
  }

  private static String severityText(LogRecordData log) {
    String text = log.getSeverityText();
    return text != null && !text.isEmpty() ? text : log.getSeverity().name();
  }

  private static void ids(SpanContext span, SpanContext parent, List<KvprovRecord.Field> fields) {
    fields.add(field(TRACE, span.getTraceId()));
    fields.add(field(SPAN, span.getSpanId()));
    if (parent.isValid()) {
      fields.add(field(PARENT, parent.getSpanId()));
    }
  }

  private OptionalLong boot(long epochNanos) {
    return clock == null ? OptionalLong.empty() : clock.sinceBootNanos(epochNanos);
  }

  static String time(long epochNanos) {
    return RFC_3339_MILLIS.format(
        Instant.ofEpochSecond(0, epochNanos).truncatedTo(java.time.temporal.ChronoUnit.MILLIS));
  }

  /** Seconds with millisecond precision, e.g. {@code 12.345}. */
  static String seconds(long nanos) {
    long millis = TimeUnit.NANOSECONDS.toMillis(nanos);
    long fraction = Math.abs(millis % 1000);
    String sign = millis < 0 && millis > -1000 ? "-" : "";
    return sign
        + (millis / 1000)
        + (fraction < 10 ? ".00" : fraction < 100 ? ".0" : ".")
        + fraction;
  }

  private static String randomHex(int digits) {
    String hex = Long.toHexString(ThreadLocalRandom.current().nextLong());
    return ("0".repeat(16) + hex).substring(16 + hex.length() - digits);
  }

  private static KvprovRecord.Field field(String label, String text) {
    return new KvprovRecord.Field(label, text);
  }
}
