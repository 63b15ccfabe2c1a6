package dev.kvprov.otel;

import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.Collection;

/**
 * Writes each ended span, its events first, as KVP records. Meant for a {@code
 * SimpleSpanProcessor}: every record is on file when {@code export} returns. Never throws; a failed
 * write fails the result and is reported once on stderr.
 */
final class KvpSpanExporter implements SpanExporter {
  private final SinkWrites<SpanData> writes;

  KvpSpanExporter(KvpSink sink) {
    this.writes = new SinkWrites<>(sink, sink::spanEnded);
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
