package dev.kvprov.otel;

import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Writes each ended span, its events first, as KVP records. Meant for a {@code
 * SimpleSpanProcessor}: every record is on file when {@code export} returns. Never throws; a failed
 * write fails the result and is reported once on stderr.
 */
final class KvpSpanExporter implements SpanExporter {
  private final KvpSink sink;
  private final AtomicBoolean shutdown = new AtomicBoolean();

  KvpSpanExporter(KvpSink sink) {
    this.sink = sink;
  }

  @Override
  public CompletableResultCode export(Collection<SpanData> spans) {
    if (shutdown.get()) {
      return CompletableResultCode.ofFailure();
    }
    boolean ok = true;
    for (SpanData span : spans) {
      try {
        ok &= sink.spanEnded(span);
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
    return "KvpSpanExporter";
  }
}
