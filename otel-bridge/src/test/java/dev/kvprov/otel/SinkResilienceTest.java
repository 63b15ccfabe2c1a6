package dev.kvprov.otel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.fixtures.HeldPool;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import io.opentelemetry.api.logs.Severity;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sink under pressure: held locks, interrupts, huge records, racing closes, bad settings. */
class SinkResilienceTest {
  @TempDir Path dir;
  private Harness harness;

  @BeforeEach
  void setUp() throws Exception {
    harness = new Harness(dir);
  }

  /** Another writer's record ("someone-else"), then another process holding the pool's locks. */
  private HeldPool holdThePool() throws Exception {
    harness.pool.append(new KvpRecord("someone-else", "x"));
    return HeldPool.hold(harness.pool.path());
  }

  @Test
  void aPoolLockHeldElsewhere_costsTheBootItsTimeoutOnce_andTheRecordsWaitInOrder()
      throws Exception {
    PoolFile slowPool = harness.pool.withLockTimeout(Duration.ofSeconds(1));
    try (KvpTelemetry telemetry = harness.telemetry().kvp(slowPool).noStderrMirror().build()) {
      HeldPool held = holdThePool();

      long started = System.nanoTime();
      for (int i = 0; i < 10; i++) {
        telemetry.tracer().spanBuilder("step" + i).startSpan().end(); // 20 records, all blocked
      }
      long millis = (System.nanoTime() - started) / 1_000_000;

      // The 1 s timeout once for the whole boot, then only tries: not 20 waits of any length.
      assertThat(millis).isLessThan(6_000);
      held.release();
      telemetry.tracer().spanBuilder("after").startSpan().end();
    }
    assertThat(harness.stderr().split("the KVP sink failed", -1)).hasSize(2);
    List<String> names = new java.util.ArrayList<>();
    for (int i = 0; i < 10; i++) {
      names.addAll(List.of("step" + i, "step" + i));
    }
    names.addAll(List.of("after", "after"));
    assertThat(harness.decoded()).extracting(r -> r.name().orElseThrow()).isEqualTo(names);
  }

  @Test
  void aLockHeldThroughTheWholeRun_butFreedAtItsEnd_stillGetsEveryRecordAndTheReport()
      throws Exception {
    PoolFile slowPool = harness.pool.withLockTimeout(Duration.ofSeconds(2));
    HeldPool held = holdThePool();
    KvpTelemetry telemetry = harness.telemetry().kvp(slowPool).noStderrMirror().build();
    telemetry.tracer().spanBuilder("provision").startSpan().end();
    telemetry.report(ProvisioningReport.success("kvprov/test", Harness.VM_ID, Instant.EPOCH));
    // The holder lets go while the run's end waits for it.
    new Thread(
            () -> {
              try {
                Thread.sleep(300);
                held.release();
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            })
        .start();

    telemetry.close();

    assertThat(harness.decoded())
        .extracting(r -> r.name().orElseThrow())
        .containsExactly("provision", "provision");
    assertThat(harness.records())
        .extracting(KvpRecord::key)
        .contains("someone-else", "PROVISIONING_REPORT");
  }

  @Test
  void aLockHeldPastTheEndOfTheRun_costsAtMostTwoTimeouts_andSaysWhatWasNotWritten()
      throws Exception {
    PoolFile slowPool = harness.pool.withLockTimeout(Duration.ofSeconds(1));
    HeldPool held = holdThePool();
    long started = System.nanoTime();
    try (KvpTelemetry telemetry = harness.telemetry().kvp(slowPool).noStderrMirror().build()) {
      for (int i = 0; i < 3; i++) {
        telemetry.tracer().spanBuilder("step" + i).startSpan().end();
      }
      telemetry.report(ProvisioningReport.success("kvprov/test", Harness.VM_ID, Instant.EPOCH));
    }
    long millis = (System.nanoTime() - started) / 1_000_000;
    held.release();

    assertThat(millis).as("one timeout for the run, one for its end").isLessThan(10_000);
    assertThat(harness.stderr())
        .contains("the KVP sink lost 6 record(s) and the provisioning report: they could not be")
        .contains("stayed locked by another writer");
    assertThat(harness.records()).extracting(KvpRecord::key).containsExactly("someone-else");
  }

  @Test
  void aLockHeldPastTheEndOfTheRun_handsEveryRecordAndTheReportToTheLateWriter_inOrder()
      throws Exception {
    PoolFile slowPool = harness.pool.withLockTimeout(Duration.ofSeconds(1));
    HeldPool held = holdThePool();
    List<KvpRecord> appended = new java.util.ArrayList<>();
    List<KvpRecord> upserted = new java.util.ArrayList<>();
    try (KvpTelemetry telemetry =
        harness
            .telemetry()
            .kvp(slowPool)
            .noStderrMirror()
            .lateRecordWriter(
                (pool, appends, upserts) -> {
                  assertThat(pool.path()).isEqualTo(slowPool.path());
                  appended.addAll(appends);
                  upserted.addAll(upserts);
                  return "the test's writer";
                })
            .build()) {
      for (int i = 0; i < 3; i++) {
        telemetry.tracer().spanBuilder("step" + i).startSpan().end();
      }
      telemetry.report(ProvisioningReport.success("kvprov/test", Harness.VM_ID, Instant.EPOCH));
    }
    held.release();

    assertThat(KvpRecordFormat.decode(appended).records())
        .extracting(r -> r.record().kind() + " " + r.record().name().orElseThrow())
        .containsExactly(
            "START step0", "END step0", "START step1", "END step1", "START step2", "END step2");
    assertThat(upserted).extracting(KvpRecord::key).containsExactly("PROVISIONING_REPORT");
    assertThat(ProvisioningReport.parse(upserted.get(0).value()).isSuccess()).isTrue();
    assertThat(harness.stderr())
        .contains(
            "the KVP sink handed over late records: the pool "
                + slowPool.path()
                + " stayed locked by another writer: 6 record(s) and the provisioning report go"
                + " to the test's writer")
        .doesNotContain("lost");
    assertThat(harness.records()).extracting(KvpRecord::key).containsExactly("someone-else");
  }

  @Test
  void aLateWriterThatCannotStart_leavesTheLossSaidInOneLine() throws Exception {
    PoolFile slowPool = harness.pool.withLockTimeout(Duration.ofMillis(300));
    HeldPool held = holdThePool();
    try (KvpTelemetry telemetry =
        harness
            .telemetry()
            .kvp(slowPool)
            .noStderrMirror()
            .lateRecordWriter(
                (pool, appends, upserts) -> {
                  throw new java.io.IOException("no java to start");
                })
            .build()) {
      telemetry.report(ProvisioningReport.success("kvprov/test", Harness.VM_ID, Instant.EPOCH));
    }
    held.release();

    assertThat(harness.stderr())
        .contains(
            "the KVP sink lost 0 record(s) and the provisioning report: the pool "
                + slowPool.path()
                + " stayed locked by another writer, and no late writer started (no java to"
                + " start)");
  }

  @Test
  void withDiagnosticsOff_aReportThatFoundThePoolLocked_isStillWrittenAtTheEnd() throws Exception {
    PoolFile slowPool = harness.pool.withLockTimeout(Duration.ofMillis(300));
    HeldPool held = holdThePool();
    KvpTelemetry telemetry =
        harness.telemetry().kvp(slowPool).kvpDiagnostics(false).noStderrMirror().build();

    assertThat(
            telemetry.report(
                ProvisioningReport.success("kvprov/test", Harness.VM_ID, Instant.EPOCH)))
        .isFalse();
    held.release();

    telemetry.close();

    assertThat(harness.records())
        .extracting(KvpRecord::key)
        .containsExactly("someone-else", "PROVISIONING_REPORT");
  }

  @Test
  void aPoolWhoseDiskFillsUp_stillGetsTheReport_overOneOfOurStartsThatEnded() throws Exception {
    dev.kvprov.fixtures.FullFileSystem.assumeAvailable();
    Path pools = java.nio.file.Files.createDirectories(dir.resolve("full"));
    List<String> command =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp",
            System.getProperty("java.class.path"),
            FullPoolMain.class.getName(),
            pools.toString());
    dev.kvprov.fixtures.FullFileSystem.Run run =
        dev.kvprov.fixtures.FullFileSystem.run(
            pools, dev.kvprov.fixtures.FullFileSystem.Fullness.FOUR_PAGES_LEFT, command);
    List<String> out = run.lines();
    assertThat(run.exit()).as(String.join("\n", out)).isZero();

    List<String> keys = out.stream().filter(l -> l.startsWith("key ")).toList();
    // Six records fitted; the report took the place of step.a's start (its end says it all).
    assertThat(keys).hasSize(6);
    assertThat(keys.get(0))
        .startsWith("key PROVISIONING_REPORT = result=success|agent=kvprov/test");
    assertThat(out).anyMatch(l -> l.contains("No space left on device"));
  }

  @Test
  void anInterruptedThread_stillWritesTheEndOfItsFailedStep_andKeepsItsInterrupt()
      throws Exception {
    boolean stillInterrupted;
    try (KvpTelemetry telemetry = harness.telemetry().noStderrMirror().build()) {
      Span step = telemetry.tracer().spanBuilder("step.with.timeout").startSpan();
      Thread.currentThread().interrupt(); // the step was cancelled
      step.setStatus(StatusCode.ERROR, "timed out");
      step.end();
      stillInterrupted = Thread.interrupted();
    }

    assertThat(stillInterrupted).isTrue();
    assertThat(harness.decoded())
        .extracting(r -> r.kind() + " " + r.status().orElse("-"))
        .containsExactly("START -", "END error");
  }

  @Test
  void aHugeErrorRecord_takesAtMostFourPieces_andSaysWhatWasCut() throws Exception {
    try (KvpTelemetry telemetry = harness.telemetry().recordBudget(20).noStderrMirror().build()) {
      telemetry
          .logger()
          .logRecordBuilder()
          .setSeverity(Severity.ERROR)
          .setBody("stack trace line\n".repeat(12_000))
          .emit();
    }

    List<KvpRecord> records = harness.records();
    assertThat(records).hasSizeBetween(1, 4);
    KvprovRecord log = harness.decoded().get(0);
    assertThat(log.field(KvpRecordFormat.BODY).orElseThrow())
        .startsWith("stack trace line\n")
        .contains("chars cut]");
  }

  @Test
  void theDropRecord_keepsUpWithDrops_beforeAnyFlush() throws Exception {
    try (KvpTelemetry telemetry = harness.telemetry().recordBudget(10).noStderrMirror().build()) {
      for (int i = 0; i < 12; i++) { // 5 fit in half the budget, 7 are dropped
        telemetry.logger().logRecordBuilder().setSeverity(Severity.DEBUG).setBody("d" + i).emit();
      }
      Thread.sleep(600); // the record is refreshed at most twice a second
      telemetry.logger().logRecordBuilder().setSeverity(Severity.DEBUG).setBody("late").emit();

      KvprovRecord dropped =
          harness.decoded().stream()
              .filter(r -> r.kind() == KvprovRecord.Kind.DROPPED)
              .findFirst()
              .orElseThrow();
      assertThat(dropped.field(KvpRecordFormat.DROPPED).orElseThrow()).startsWith("8 (debug=8)");
    }
  }

  @Test
  void aMalformedOtlpEndpoint_isReported_andTelemetryWorksWithoutIt() throws Exception {
    try (KvpTelemetry telemetry =
        harness
            .telemetry()
            .environment(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "localhost:4318"))
            .noStderrMirror()
            .build()) {
      telemetry.tracer().spanBuilder("still.traced").startSpan().end();
    }

    assertThat(harness.stderr()).contains("the OTLP sink failed: not sending");
    assertThat(harness.decoded()).hasSize(2);
  }

  @Test
  void aSecondClose_waitsForTheFirst_soAHookCannotCutAFlushShort() throws Exception {
    try (OtlpReceiver stalled = new OtlpReceiver(60_000)) {
      KvpTelemetry telemetry =
          harness
              .telemetry()
              .noStderrMirror()
              .otlpEndpoint(stalled.baseUrl())
              .otlpTimeout(Duration.ofMillis(700))
              .build();
      telemetry.tracer().spanBuilder("queued").startSpan().end();
      long[] firstDone = new long[1];
      Thread first =
          new Thread(
              () -> {
                telemetry.close();
                firstDone[0] = System.nanoTime();
              });
      first.start();
      Thread.sleep(100);

      telemetry.close();
      long secondDone = System.nanoTime();
      first.join();

      assertThat(firstDone[0]).isPositive();
      assertThat(secondDone).isGreaterThanOrEqualTo(firstDone[0] - 50_000_000L);
    }
  }
}
