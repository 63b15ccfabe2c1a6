package dev.kvprov.otel;

import dev.kvprov.kvp.PoolFile;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.Collection;

/**
 * Writes each ended span, its events first, as KVP records. Meant for a {@code
 * SimpleSpanProcessor}: every record is on file when {@code export} returns. Never throws; a failed
 * write fails the result and is reported once on stderr.
 */
public final class KvpSpanExporter implements SpanExporter {
  private final SinkWrites<SpanData> writes;

  private final KvpSink sink;

  /**
   * @param closesSink whether shutting down ends the sink (an exporter on its own) or only flushes
   *     it ({@link KvpTelemetry} ends it)
   */
  KvpSpanExporter(KvpSink sink, boolean closesSink) {
    this.sink = sink;
    this.writes = new SinkWrites<>(sink, sink::spanEnded, closesSink);
  }

  /**
   * Writes to {@code pool} with the default settings: VM id unknown, no boot clock, failures
   * reported on stderr. {@link KvpSpanExporter#builder} sets them.
   */
  public static KvpSpanExporter create(PoolFile pool) {
    return new KvpExporterBuilder(pool).buildSpanExporter();
  }

  /**
   * A processor that writes a record when a span starts, through this exporter's sink: add it to
   * the provider beside this exporter's {@code SimpleSpanProcessor}, so that a step that hangs, or
   * a process killed mid-step, shows in the pool as started and never finished.
   */
  public SpanProcessor startProcessor() {
    return new KvpSpanStartProcessor(sink);
  }

  /** Settings for exporters that share one sink: a span and a log record exporter, say. */
  public static KvpExporterBuilder builder(PoolFile pool) {
    return new KvpExporterBuilder(pool);
  }

  @Override
  public CompletableResultCode export(Collection<SpanData> spans) {
    return writes.export(spans);
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
    return "KvpSpanExporter";
  }
}
