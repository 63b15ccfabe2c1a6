package dev.kvprov.otel;

import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.logs.data.LogRecordData;
import io.opentelemetry.sdk.logs.export.LogRecordExporter;
import java.util.Collection;

/**
 * Writes each log record, tied to its span when it has one, as a KVP record. Meant for a {@code
 * SimpleLogRecordProcessor}. Never throws.
 */
final class KvpLogRecordExporter implements LogRecordExporter {
  private final SinkWrites<LogRecordData> writes;

  KvpLogRecordExporter(KvpSink sink) {
    this.writes = new SinkWrites<>(sink, sink::log);
  }

  @Override
  public CompletableResultCode export(Collection<LogRecordData> logs) {
    return writes.export(logs);
  }

  @Override
  public CompletableResultCode flush() {
    return writes.flush();
  }

  @Override
  public CompletableResultCode shutdown() {
    return writes.shutdown();
  }

  @Override
  public String toString() {
    return "KvpLogRecordExporter";
  }
}
