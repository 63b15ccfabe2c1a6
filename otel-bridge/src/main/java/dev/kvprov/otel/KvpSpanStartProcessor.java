package dev.kvprov.otel;

import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SpanProcessor;

/**
 * Writes a record when a span starts, so a step that hangs, or a process killed mid-step, shows in
 * the pool as started and never finished. The end record comes from {@link KvpSpanExporter}.
 */
final class KvpSpanStartProcessor implements SpanProcessor {
  private final KvpSink sink;

  KvpSpanStartProcessor(KvpSink sink) {
    this.sink = sink;
  }

  @Override
  public void onStart(Context parentContext, ReadWriteSpan span) {
    try {
      sink.spanStarted(span.toSpanData());
    } catch (RuntimeException e) {
      // A start record is never worth a failed span: said once, like every sink failure.
      sink.failed(e);
    }
  }

  @Override
  public boolean isStartRequired() {
    return true;
  }

  @Override
  public void onEnd(ReadableSpan span) {}

  @Override
  public boolean isEndRequired() {
    return false;
  }
}
