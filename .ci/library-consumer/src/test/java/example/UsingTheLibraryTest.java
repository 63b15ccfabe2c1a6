package example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kvprov.kvp.BootClock;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.PoolSnapshot;
import dev.kvprov.kvp.VmId;
import dev.kvprov.otel.KvpExporterBuilder;
import dev.kvprov.otel.KvpSpanExporter;
import dev.kvprov.otel.KvpTelemetry;
import dev.kvprov.otel.ProvisioningReport;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.sdk.logs.SdkLoggerProvider;
import io.opentelemetry.sdk.logs.export.SimpleLogRecordProcessor;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's "Using the library" and "Tracing any JVM program into KVP" (both forms), in a pool
 * of our own.
 */
class UsingTheLibraryTest {
  @TempDir Path dir;

  @Test
  void thePoolFileLibrary() throws Exception {
    PoolFile pool =
        PoolFile.builder().directory(dir).archive(dir.resolve("archive"), 5).build();
    pool.clearIfStale(BootClock.system().bootTime());
    pool.append(List.of(new KvpRecord("key", "value")));
    pool.upsert(new KvpRecord("PROVISIONING_REPORT", "result=success|agent=example/1"));

    PoolSnapshot snapshot = pool.read();

    assertTrue(snapshot.problems().isEmpty(), snapshot.problems().toString());
    assertEquals(List.of("key", "PROVISIONING_REPORT"),
        snapshot.entries().stream().map(e -> e.key()).toList());
  }

  @Test
  void tracingIntoKvp() throws Exception {
    VmId vmId = new VmId("00000000-0000-4000-8000-000000000001", "example");
    try (KvpTelemetry telemetry =
        KvpTelemetry.builder()
            .serviceName("my-agent")
            .serviceVersion("1.0")
            .vmId(vmId)
            .bootClock(BootClock.system())
            .kvp(PoolFile.builder().directory(dir).build())
            .noStderrMirror()
            .build()
            .clearStalePool()
            .reportSdkLogging()
            .closeOnShutdown()) {
      telemetry.redactor().register("hunter2");
      Span step = telemetry.tracer().spanBuilder("imds.fetch").startSpan();
      step.setAttribute("password", "hunter2");
      step.end();
      telemetry.report(ProvisioningReport.success("my-agent/1.0", vmId.value(), Instant.now()));
    }

    String pool = Files.readString(dir.resolve(".kvp_pool_1")).replace("\0", "");
    assertTrue(pool.contains("imds.fetch"), pool);
    assertTrue(pool.contains("PROVISIONING_REPORT"), pool);
    assertTrue(!pool.contains("hunter2"), pool);
  }

  @Test
  void theExportersInAnApplicationsOwnProviders() throws Exception {
    KvpExporterBuilder kvp =
        KvpSpanExporter.builder(PoolFile.builder().directory(dir).build())
            .vmId(new VmId("00000000-0000-4000-8000-000000000002", "example"));
    KvpSpanExporter spans = kvp.buildSpanExporter();
    SdkTracerProvider tracing =
        SdkTracerProvider.builder()
            .addSpanProcessor(spans.startProcessor())
            .addSpanProcessor(SimpleSpanProcessor.create(spans))
            .build();
    SdkLoggerProvider logging =
        SdkLoggerProvider.builder()
            .addLogRecordProcessor(SimpleLogRecordProcessor.create(kvp.buildLogRecordExporter()))
            .build();
    tracing.get("example").spanBuilder("my.step").startSpan().end();
    logging.get("example").logRecordBuilder().setBody("a log line").emit();
    tracing.close();
    logging.close();

    String pool = Files.readString(dir.resolve(".kvp_pool_1")).replace("\0", "");
    assertTrue(pool.contains("my.step"), pool);
    assertTrue(pool.contains("a log line"), pool);
  }
}
