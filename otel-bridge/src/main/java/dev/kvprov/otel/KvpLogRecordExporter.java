package dev.kvprov.otel;

import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.logs.data.LogRecordData;
import io.opentelemetry.sdk.logs.export.LogRecordExporter;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Writes each log record, tied to its span when it has one, as a KVP record. Meant for a {@code
 * SimpleLogRecordProcessor}. Never throws.
 */
final class KvpLogRecordExporter implements LogRecordExporter {
  private final KvpSink sink;
  private final AtomicBoolean shutdown = new AtomicBoolean();

  KvpLogRecordExporter(KvpSink sink) {
    this.sink = sink;
  }

  @Override
  public CompletableResultCode export(Collection<LogRecordData> logs) {
    if (shutdown.get()) {
      return CompletableResultCode.ofFailure();
    }
    boolean ok = true;
    for (LogRecordData log : logs) {
      try {
        ok &= sink.log(log);
      } catch (RuntimeException e) {
        ok = false;
      }
    }
    return ok ? CompletableResultCode.ofSuccess() : CompletableResultCode.ofFailure();
  }

  @Override
  public CompletableResultCode flush() {
    return sink.flush() ? CompletableResultCode.ofSuccess() : CompletableResultCode.ofFailure();
  }

  @Override
  public CompletableResultCode shutdown() {
    if (!shutdown.compareAndSet(false, true)) {
      return CompletableResultCode.ofSuccess();
    }
    return flush();
  }

  @Override
  public String toString() {
    return "KvpLogRecordExporter";
  }
}
