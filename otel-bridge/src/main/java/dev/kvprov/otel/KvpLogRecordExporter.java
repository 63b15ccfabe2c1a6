package dev.kvprov.otel;

import dev.kvprov.kvp.PoolFile;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.logs.data.LogRecordData;
import io.opentelemetry.sdk.logs.export.LogRecordExporter;
import java.util.Collection;

/**
 * Writes each log record, tied to its span when it has one, as a KVP record. Meant for a {@code
 * SimpleLogRecordProcessor}. Never throws.
 */
public final class KvpLogRecordExporter implements LogRecordExporter {
  private final SinkWrites<LogRecordData> writes;

  private final KvpSink sink;

  /**
   * @param closesSink whether shutting down ends the sink (an exporter on its own) or only flushes
   *     it ({@link KvpTelemetry} ends it)
   */
  KvpLogRecordExporter(KvpSink sink, boolean closesSink) {
    this.sink = sink;
    this.writes = new SinkWrites<>(sink, sink::log, closesSink);
  }

  /**
   * Writes to {@code pool} with the default settings: VM id unknown, no boot clock, failures
   * reported on stderr. {@link KvpSpanExporter#builder} sets them.
   */
  public static KvpLogRecordExporter create(PoolFile pool) {
    return new KvpExporterBuilder(pool).buildLogRecordExporter();
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
