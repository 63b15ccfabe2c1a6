package dev.kvprov.agent;

import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Consumer;

/** The spans some code ends, as the SDK hands them to an exporter: for tests of one span. */
public final class SpanRecorder {
  private SpanRecorder() {}

  /** Runs {@code code} with a real SDK tracer and returns the spans it ended, in order. */
  public static List<SpanData> record(Consumer<Tracer> code) {
    List<SpanData> spans = new ArrayList<>();
    SpanExporter collect =
        new SpanExporter() {
          @Override
          public CompletableResultCode export(Collection<SpanData> batch) {
            spans.addAll(batch);
            return CompletableResultCode.ofSuccess();
          }

          @Override
          public CompletableResultCode flush() {
            return CompletableResultCode.ofSuccess();
          }

          @Override
          public CompletableResultCode shutdown() {
            return CompletableResultCode.ofSuccess();
          }
        };
    try (SdkTracerProvider tracing =
        SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(collect)).build()) {
      code.accept(tracing.get("test"));
    }
    return spans;
  }
}
