package dev.kvprov.otel;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.Value;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.logs.LogRecordProcessor;
import io.opentelemetry.sdk.logs.ReadWriteLogRecord;
import io.opentelemetry.sdk.logs.data.LogRecordData;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.io.PrintStream;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Every span start and end, span event and log record as one readable {@link StderrLine}, e.g.
 * {@code [ 12.345s] INFO provision/imds.fetch: ok (0.231s)}: time since boot, level, span path,
 * message, and the duration on an end. Where the lines go is the sink's business: printed on stderr
 * (with journal priorities when that is the journal), or handed to the program's logging backend. A
 * sink that throws is reported once, like any failing sink, and the program goes on.
 */
final class StderrMirror implements SpanProcessor, LogRecordProcessor {
  /** Where failures of the sink are reported from. */
  static final String NAME = "stderr";

  private final Consumer<StderrLine> sink;
  private final KvprovRecord.Level threshold;
  private final Redactor redactor;
  private final BootAnchoredClock clock;
  private final FailureReporter failures;
  private final Map<String, String> paths = new ConcurrentHashMap<>();

  StderrMirror(
      Consumer<StderrLine> sink,
      KvprovRecord.Level threshold,
      Redactor redactor,
      BootAnchoredClock clock,
      FailureReporter failures) {
    this.sink = sink;
    this.threshold = threshold;
    this.redactor = redactor;
    this.clock = clock;
    this.failures = failures;
  }

  /** The lines printed on a stream: with journal priorities when it is the journal. */
  static Consumer<StderrLine> printing(PrintStream out, boolean journal) {
    return line -> {
      synchronized (out) {
        out.println(journal ? line.journalText() : line.text());
        out.flush();
      }
    };
  }

  @Override
  public void onStart(Context parentContext, ReadWriteSpan span) {
    String name = redactor.redact(span.getName());
    SpanContext parent = span.getParentSpanContext();
    String parentPath = parent.isValid() ? paths.get(parent.getSpanId()) : null;
    String path = parentPath == null ? name : parentPath + "/" + name;
    paths.put(span.getSpanContext().getSpanId(), path);
    line(KvprovRecord.Level.INFO, clock.now(), path, "started" + attributes(span.getAttributes()));
  }

  @Override
  public boolean isStartRequired() {
    return true;
  }

  @Override
  public void onEnd(ReadableSpan span) {
    SpanData data = span.toSpanData();
    String id = data.getSpanId();
    String path = paths.getOrDefault(id, redactor.redact(data.getName()));
    for (EventData event : data.getEvents()) {
      line(
          SpanRecords.eventLevel(event),
          event.getEpochNanos(),
          path,
          redactor.redact(event.getName()) + attributes(event.getAttributes()));
    }
    KvprovRecord.Level level = SpanRecords.endLevel(data);
    String duration =
        " (" + SpanRecords.seconds(data.getEndEpochNanos() - data.getStartEpochNanos()) + "s)";
    String message =
        switch (level) {
          case ERROR -> "failed: " + redactor.redact(data.getStatus().getDescription());
          case WARN ->
              "warning: " + redactor.redact(data.getAttributes().get(KvprovAttributes.WARNING));
          default -> "ok";
        };
    line(level, data.getEndEpochNanos(), path, message + duration);
    paths.remove(id);
  }

  @Override
  public boolean isEndRequired() {
    return true;
  }

  @Override
  public void onEmit(Context context, ReadWriteLogRecord logRecord) {
    LogRecordData log = logRecord.toLogRecordData();
    SpanContext span = log.getSpanContext();
    String path = span.isValid() ? paths.get(span.getSpanId()) : null;
    if (path == null) {
      path = log.getInstrumentationScopeInfo().getName();
    }
    Value<?> body = redactor.redact(log.getBodyValue());
    long at =
        log.getTimestampEpochNanos() != 0
            ? log.getTimestampEpochNanos()
            : log.getObservedTimestampEpochNanos();
    line(
        SpanRecords.level(log.getSeverity()),
        at,
        path,
        (body == null ? "" : body.asString()) + attributes(log.getAttributes()));
  }

  /** One line for the provisioning report: ERROR for a failure, INFO for success. */
  void report(ProvisioningReport report) {
    line(
        report.isSuccess() ? KvprovRecord.Level.INFO : KvprovRecord.Level.ERROR,
        clock.now(),
        "PROVISIONING_REPORT",
        report.redacted(redactor::redact).encode());
  }

  private String attributes(Attributes attributes) {
    Attributes safe = redactor.redact(attributes);
    if (safe.isEmpty()) {
      return "";
    }
    StringBuilder text = new StringBuilder(" (");
    safe.forEach(
        (k, v) -> {
          if (text.length() > 2) {
            text.append(", ");
          }
          text.append(k.getKey()).append('=').append(v);
        });
    return text.append(')').toString();
  }

  private void line(KvprovRecord.Level level, long epochNanos, String path, String message) {
    if (level.compareTo(threshold) < 0) {
      return;
    }
    OptionalLong sinceBoot = clock.sinceBootNanos(epochNanos);
    String time =
        sinceBoot.isPresent()
            ? SpanRecords.seconds(sinceBoot.getAsLong()) + "s"
            : SpanRecords.time(epochNanos);
    try {
      sink.accept(new StderrLine(level, time, path + ": " + message));
    } catch (RuntimeException e) {
      failures.failure(NAME, e);
    }
  }

  @Override
  public CompletableResultCode shutdown() {
    return CompletableResultCode.ofSuccess();
  }

  @Override
  public CompletableResultCode forceFlush() {
    return CompletableResultCode.ofSuccess();
  }

  @Override
  public void close() {
    shutdown().join(1, java.util.concurrent.TimeUnit.SECONDS);
  }
}
