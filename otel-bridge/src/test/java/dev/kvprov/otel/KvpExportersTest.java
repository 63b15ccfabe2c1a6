package dev.kvprov.otel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.kvp.PoolFile;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The OpenTelemetry exporter contract, held by the KVP span exporter. */
class KvpExportersTest {
  @TempDir Path dir;
  private Harness harness;

  @BeforeEach
  void setUp() throws Exception {
    harness = new Harness(dir);
  }

  private KvpSink sink(PoolFile pool) {
    return new KvpSink(
        pool,
        new LockWaits(pool.lockTimeout()),
        new SpanRecords(Harness.VM_ID, new Redactor(), null),
        300,
        new FailureReporter(harness.stderr),
        null,
        java.util.Optional.empty());
  }

  /** A real ended span, made by the SDK. */
  static SpanData span(String name) {
    List<SpanData> ended = new java.util.ArrayList<>();
    SpanExporter collect =
        new SpanExporter() {
          @Override
          public CompletableResultCode export(java.util.Collection<SpanData> spans) {
            ended.addAll(spans);
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
    try (SdkTracerProvider provider =
        SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(collect)).build()) {
      provider
          .get("test")
          .spanBuilder(name)
          .setStartTimestamp(1, TimeUnit.SECONDS)
          .startSpan()
          .end(2, TimeUnit.SECONDS);
    }
    return ended.get(0);
  }

  @Test
  void export_writesTheSpan_andFlushForcesItToDisk() throws Exception {
    KvpSpanExporter exporter = new KvpSpanExporter(sink(harness.pool), false);

    CompletableResultCode result = exporter.export(List.of(span("step")));

    assertThat(result.isSuccess()).isTrue();
    assertThat(exporter.flush().isSuccess()).isTrue();
    assertThat(harness.decoded())
        .extracting(r -> r.kind() + " " + r.name().orElseThrow())
        .containsExactly("END step");
    assertThat(harness.decoded().get(0).start().orElseThrow().toString())
        .isEqualTo("1970-01-01T00:00:01Z");
  }

  @Test
  void aWriteFailure_failsTheResult_neverThrows_andIsReportedOnce() throws Exception {
    Path file = dir.resolve("file");
    Files.writeString(file, "not a directory");
    KvpSpanExporter exporter = new KvpSpanExporter(sink(PoolFile.open(file, 1)), false);

    CompletableResultCode first = exporter.export(List.of(span("a")));
    CompletableResultCode second = exporter.export(List.of(span("b")));

    assertThat(first.isSuccess()).isFalse();
    assertThat(second.isSuccess()).isFalse();
    assertThat(harness.stderr().split("the KVP sink failed", -1)).hasSize(2);
  }

  @Test
  void shutdown_isIdempotent_andLaterExportsFail() {
    KvpSpanExporter exporter = new KvpSpanExporter(sink(harness.pool), false);

    assertThat(exporter.shutdown().isSuccess()).isTrue();
    assertThat(exporter.shutdown().isSuccess()).isTrue();
    assertThat(exporter.export(List.of(span("late"))).isSuccess()).isFalse();
  }

  /** A span that cannot be read: every call on it throws, as a broken SDK extension might. */
  private static <T> T unreadable(Class<T> type) {
    return type.cast(
        java.lang.reflect.Proxy.newProxyInstance(
            type.getClassLoader(),
            new Class<?>[] {type},
            (proxy, method, args) -> {
              throw new IllegalStateException("this span cannot be read");
            }));
  }

  @Test
  void aSpanThatCannotBeRead_failsNeitherTheSpanNorTheCaller_andIsReportedLikeAnyFailure() {
    KvpSink sink = sink(harness.pool);
    KvpSpanExporter exporter = new KvpSpanExporter(sink, false);

    new KvpSpanStartProcessor(sink)
        .onStart(
            io.opentelemetry.context.Context.root(),
            unreadable(io.opentelemetry.sdk.trace.ReadWriteSpan.class));
    CompletableResultCode result =
        exporter.export(List.of(unreadable(io.opentelemetry.sdk.trace.data.SpanData.class)));

    assertThat(result.isSuccess()).isFalse();
    assertThat(harness.stderr())
        .contains("the KVP sink failed: this span cannot be read (provisioning goes on;");
    assertThat(harness.stderr().split("the KVP sink failed", -1)).hasSize(2);
  }
}
