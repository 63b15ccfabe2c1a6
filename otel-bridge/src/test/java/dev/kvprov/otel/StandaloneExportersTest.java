package dev.kvprov.otel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.VmId;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.logs.Logger;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.logs.SdkLoggerProvider;
import io.opentelemetry.sdk.logs.export.SimpleLogRecordProcessor;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.logging.Handler;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The KVP exporters on their own, in an application's own providers; and {@link KvpTelemetry},
 * whose building changes nothing outside it until its explicit steps are called.
 */
class StandaloneExportersTest {
  @TempDir Path dir;
  private Harness harness;

  @BeforeEach
  void setUp() throws Exception {
    harness = new Harness(dir);
  }

  @Test
  void anApplicationsOwnProviders_writeStartsEndsAndLogs_throughOneSink() throws Exception {
    KvpExporterBuilder kvp =
        KvpSpanExporter.builder(harness.pool)
            .vmId(new VmId(Harness.VM_ID, "test"))
            .bootClock(harness.bootClock)
            .failuresTo(harness.stderr)
            .secret("never-log-me");
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
    Logger logger = logging.get("app");

    Span step = tracing.get("app").spanBuilder("imds.fetch").startSpan();
    List<KvprovRecord> whileRunning = harness.decoded();
    try (Scope ignored = step.makeCurrent()) {
      logger.logRecordBuilder().setBody("asked IMDS with never-log-me").emit();
      step.setAttribute(AttributeKey.stringKey("imds.url"), "http://169.254.169.254");
      step.setStatus(StatusCode.ERROR, "HTTP 503");
    }
    step.end();
    tracing.shutdown().join(5, java.util.concurrent.TimeUnit.SECONDS);
    logging.shutdown().join(5, java.util.concurrent.TimeUnit.SECONDS);

    assertThat(whileRunning)
        .extracting(KvprovRecord::kind)
        .containsExactly(KvprovRecord.Kind.START);
    List<KvprovRecord> records = harness.decoded();
    assertThat(records)
        .extracting(KvprovRecord::kind)
        .containsExactly(KvprovRecord.Kind.START, KvprovRecord.Kind.LOG, KvprovRecord.Kind.END);
    KvprovRecord end = records.get(2);
    assertThat(end.vmId()).isEqualTo(Harness.VM_ID);
    assertThat(end.errorMessage()).contains("HTTP 503");
    assertThat(end.sinceBoot()).as("the boot clock given").isPresent();
    String pool = String.join("\n", harness.records().stream().map(KvpRecord::value).toList());
    assertThat(pool).contains("asked IMDS with").doesNotContain("never-log-me");
    assertThat(harness.stderrBytes.toString()).isEmpty();
  }

  @Test
  void create_needsOnlyThePool_andAFailingPoolIsSaidOnceNeverThrown() throws Exception {
    Path notADirectory = Files.writeString(dir.resolve("file"), "x");
    KvpSpanExporter broken =
        KvpSpanExporter.builder(PoolFile.open(notADirectory, 1))
            .failuresTo(harness.stderr)
            .buildSpanExporter();
    SdkTracerProvider tracing =
        SdkTracerProvider.builder()
            .addSpanProcessor(broken.startProcessor())
            .addSpanProcessor(SimpleSpanProcessor.create(broken))
            .build();
    for (int i = 0; i < 5; i++) {
      tracing.get("app").spanBuilder("step" + i).startSpan().end();
    }
    tracing.shutdown().join(5, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(harness.stderrBytes.toString().lines()).hasSize(1);

    KvpSpanExporter plain = KvpSpanExporter.create(harness.pool);
    try (SdkTracerProvider provider =
        SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(plain)).build()) {
      provider.get("app").spanBuilder("one").startSpan().end();
    }
    assertThat(harness.decoded()).extracting(KvprovRecord::vmId).containsExactly(VmId.UNKNOWN);
  }

  @Test
  void buildingTelemetry_leavesAStalePoolAndTheJvmAlone_theExplicitStepsDoTheirPart()
      throws Exception {
    PoolFile archived =
        PoolFile.builder()
            .directory(dir.resolve("hyperv"))
            .archive(dir.resolve("archive"), 3)
            .build();
    archived.append(List.of(new KvpRecord("last boot", "written before this boot")));
    Files.setLastModifiedTime(
        archived.path(), FileTime.from(Instant.parse("2020-01-01T00:00:00Z")));
    java.util.logging.Logger sdkLogger = java.util.logging.Logger.getLogger("io.opentelemetry");
    List<Handler> handlersBefore = List.of(sdkLogger.getHandlers());

    try (KvpTelemetry telemetry = harness.telemetry().kvp(archived).noStderrMirror().build()) {
      assertThat(archived.read().records()).extracting(KvpRecord::key).containsExactly("last boot");
      assertThat(List.of(sdkLogger.getHandlers())).isEqualTo(handlersBefore);

      telemetry.clearStalePool();

      assertThat(archived.read().records()).isEmpty();
      assertThat(Files.list(dir.resolve("archive")).count()).as("the last boot archived").isOne();
      telemetry.reportSdkLogging();
      assertThat(sdkLogger.getHandlers()).hasSize(1);
      assertThat(sdkLogger.getUseParentHandlers()).isFalse();
      assertThat(telemetry.closeOnShutdown()).isSameAs(telemetry);
    }
  }

  @Test
  void anEarlierBootsRecords_clearedByTheExplicitStep_leaveThisBootItsWholeBudget()
      throws Exception {
    List<KvpRecord> stale = new java.util.ArrayList<>();
    for (int i = 0; i < 300; i++) {
      stale.add(new KvpRecord("kvprov-1|vm|INFO|log|" + String.format("%016x", i + 1L), "old"));
    }
    harness.pool.append(stale);
    Files.setLastModifiedTime(
        harness.pool.path(), FileTime.from(Instant.parse("2020-01-01T00:00:00Z")));

    try (KvpTelemetry telemetry =
        harness.telemetry().recordBudget(300).noStderrMirror().build().clearStalePool()) {
      for (int i = 0; i < 10; i++) {
        telemetry.tracer().spanBuilder("step" + i).startSpan().end();
      }
    }

    assertThat(harness.decoded())
        .filteredOn(r -> r.kind() == KvprovRecord.Kind.END)
        .as("every span of this boot, none dropped for the last boot's records")
        .hasSize(10);
  }
}
