package dev.kvprov.otel;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.Value;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.StatusCode;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every span start and end, span event and log record as one readable line on stderr, e.g. {@code [
 * 12.345s] INFO provision/imds.fetch: ok (0.231s)}: time since boot, level, span path, message, and
 * the duration on an end. When stderr is the journal, each line starts with its syslog priority
 * ({@code <3>} error … {@code <7>} debug) so {@code journalctl -p} filters work; otherwise the text
 * is plain, for a serial console.
 */
final class StderrMirror implements SpanProcessor, LogRecordProcessor {
  private final PrintStream out;
  private final KvprovRecord.Level threshold;
  private final boolean journal;
  private final Redactor redactor;
  private final BootAnchoredClock clock;
  private final Map<String, String> paths = new ConcurrentHashMap<>();

  StderrMirror(
      PrintStream out,
      KvprovRecord.Level threshold,
      boolean journal,
      Redactor redactor,
      BootAnchoredClock clock) {
    this.out = out;
    this.threshold = threshold;
    this.journal = journal;
    this.redactor = redactor;
    this.clock = clock;
  }

  /**
   * Whether stderr is connected to the journal: systemd sets {@code JOURNAL_STREAM} to the device
   * and inode of that stream, which must match what fd 2 is now (it may have been redirected
   * since).
   */
  static boolean stderrIsJournal(Map<String, String> environment) {
    String stream = environment.get("JOURNAL_STREAM");
    if (stream == null || !stream.matches("\\d+:\\d+")) {
      return false;
    }
    try {
      Path fd2 = Path.of("/proc/self/fd/2");
      Object dev = Files.getAttribute(fd2, "unix:dev");
      Object ino = Files.getAttribute(fd2, "unix:ino");
      return stream.equals(dev + ":" + ino);
    } catch (Exception e) {
      return false;
    }
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
    boolean failed = data.getStatus().getStatusCode() == StatusCode.ERROR;
    String duration =
        " (" + SpanRecords.seconds(data.getEndEpochNanos() - data.getStartEpochNanos()) + "s)";
    String message =
        failed
            ? "failed: " + redactor.redact(data.getStatus().getDescription()) + duration
            : "ok" + duration;
    line(
        failed ? KvprovRecord.Level.ERROR : KvprovRecord.Level.INFO,
        data.getEndEpochNanos(),
        path,
        message);
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
            ? String.format(Locale.ROOT, "[%10ss]", SpanRecords.seconds(sinceBoot.getAsLong()))
            : "[" + SpanRecords.time(epochNanos) + "]";
    // One line per record, whatever the text holds: a line break would split it in the journal.
    String text =
        (journal ? priority(level) : "")
            + time
            + " "
            + String.format(Locale.ROOT, "%-5s", level)
            + " "
            + path
            + ": "
            + message.replace("\r", "\\r").replace("\n", "\\n");
    synchronized (out) {
      out.println(text);
      out.flush();
    }
  }

  private static String priority(KvprovRecord.Level level) {
    return switch (level) {
      case ERROR -> "<3>";
      case WARN -> "<4>";
      case INFO -> "<6>";
      case DEBUG -> "<7>";
    };
  }

  @Override
  public CompletableResultCode shutdown() {
    return CompletableResultCode.ofSuccess();
  }

  @Override
  public CompletableResultCode forceFlush() {
    out.flush();
    return CompletableResultCode.ofSuccess();
  }

  @Override
  public void close() {
    shutdown().join(1, java.util.concurrent.TimeUnit.SECONDS);
  }
}
