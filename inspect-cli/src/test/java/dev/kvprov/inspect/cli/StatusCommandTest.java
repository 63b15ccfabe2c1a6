package dev.kvprov.inspect.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.inspect.CliRun;
import dev.kvprov.inspect.QuietTelemetry;
import dev.kvprov.inspect.RescuedDisk;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.otel.KvpTelemetry;
import dev.kvprov.otel.ProvisioningReport;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kvp status}: the verdict from the pool and kvprov's markers, waited for when asked. */
class StatusCommandTest {
  @TempDir Path dir;

  @Test
  void wait_returnsWithTheVerdict_whileARunWritesThePool() throws Exception {
    PoolFile pool = PoolFile.open(dir, 1);
    CompletableFuture<Void> boot =
        CompletableFuture.runAsync(
            () -> {
              try (KvpTelemetry telemetry = QuietTelemetry.into(pool).build()) {
                Thread.sleep(300);
                Span run = telemetry.tracer().spanBuilder("provision").startSpan();
                try (Scope ignored = run.makeCurrent()) {
                  Thread.sleep(300);
                  telemetry.tracer().spanBuilder("imds.fetch").startSpan().end();
                  Thread.sleep(300);
                }
                run.end();
                telemetry.report(ProvisioningReport.success("kvprov/test", "vm", Instant.now()));
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });

    CliRun status =
        CliRun.of(
            "status", "--wait", "--timeout", "60s", "--interval", "50ms", "--dir", dir.toString());
    boot.join();

    assertThat(status.exit()).as(status.err()).isZero();
    assertThat(status.out())
        .startsWith("status:   succeeded\n")
        .contains("report:   by kvprov/test");
  }

  @Test
  void aRunStillGoing_isRunningAtItsOpenStep_andTheTimeoutEndsTheWait() throws Exception {
    PoolFile pool = PoolFile.open(dir, 1);
    KvpTelemetry telemetry = QuietTelemetry.into(pool).build();
    Span run = telemetry.tracer().spanBuilder("provision").startSpan();
    try (Scope ignored = run.makeCurrent()) {
      telemetry.tracer().spanBuilder("imds.fetch").startSpan(); // never ends: the run is stuck
      CliRun status =
          CliRun.of(
              "status",
              "--json",
              "--wait",
              "--timeout",
              "300ms",
              "--interval",
              "50ms",
              "--dir",
              dir.toString());

      assertThat(status.exit()).isEqualTo(StatusCommand.NO_VERDICT);
      assertThat(status.json().path("status").asText()).isEqualTo("running");
      assertThat(status.json().path("step").asText()).isEqualTo("imds.fetch");
    }
  }

  @Test
  void aFailureReport_isFailedWithItsReason_andMarkersAreListed() throws Exception {
    Path root = dir.resolve("root");
    PoolFile pool = PoolFile.open(Files.createDirectories(root.resolve("var/lib/hyperv")), 1);
    Files.createDirectories(root.resolve("var/lib/kvprov"));
    Files.writeString(root.resolve("var/lib/kvprov/vm.provisioned"), "2026-11-22T04:47:47Z\n");
    try (KvpTelemetry telemetry = QuietTelemetry.into(pool).build()) {
      telemetry.report(
          ProvisioningReport.failure(
              "IMDS answered HTTP 503", "kvprov/test", "vm", Instant.now(), java.util.Map.of()));
    }

    CliRun status = CliRun.of("status", "--root", root.toString());

    assertThat(status.exit()).isEqualTo(1);
    assertThat(status.out())
        .contains(
            "status:   failed\n",
            "reason:   IMDS answered HTTP 503\n",
            "markers:  vm.provisioned\n");
  }

  @Test
  void nothingYet_isNotStarted() {
    CliRun status = CliRun.of("status", "--dir", dir.toString());

    assertThat(status.exit()).isEqualTo(StatusCommand.NO_VERDICT);
    assertThat(status.out()).startsWith("status:   not started\n");
  }

  @Test
  void withTwoBoots_theLastDecides_aHungRunIsNotAnEarlierSuccess() throws Exception {
    Path earlier = dir.resolve("earlier");
    try (KvpTelemetry telemetry = QuietTelemetry.into(PoolFile.open(earlier, 1)).build()) {
      telemetry.tracer().spanBuilder("provision").startSpan().end();
      telemetry.report(ProvisioningReport.success("kvprov/test", "vm", Instant.now()));
    }
    Path hung = dir.resolve("hung");
    KvpTelemetry telemetry = QuietTelemetry.into(PoolFile.open(hung, 1)).build();
    telemetry.tracer().spanBuilder("provision").startSpan(); // killed: never ends
    Path root =
        RescuedDisk.of(
            dir,
            Files.readAllBytes(earlier.resolve(".kvp_pool_1")),
            Files.readAllBytes(hung.resolve(".kvp_pool_1")));

    CliRun status = CliRun.of("status", "--root", root.toString());
    CliRun report = CliRun.of("report", "--root", root.toString());

    assertThat(status.out()).startsWith("status:   running\n");
    assertThat(status.exit()).isEqualTo(StatusCommand.NO_VERDICT);
    assertThat(report.out()).startsWith("provisioning never finished");
    assertThat(report.exit()).isEqualTo(1);
  }

  @Test
  void theLastBootsPool_onTheRunningSystem_isNotThisBootsVerdict() throws Exception {
    PoolFile pool = PoolFile.open(dir, 1);
    try (KvpTelemetry telemetry = QuietTelemetry.into(pool).build()) {
      telemetry.report(ProvisioningReport.success("kvprov/test", "vm", Instant.now()));
    }
    Files.setLastModifiedTime(
        pool.path(), java.nio.file.attribute.FileTime.from(Instant.parse("2020-01-01T00:00:00Z")));

    CliRun status = CliRun.of("status", "--dir", dir.toString());

    assertThat(status.out()).startsWith("status:   not started\n");
  }

  @Test
  void aPoolThatIsNotThere_isAnIoError_notANeverEndingWait() {
    CliRun status = CliRun.of("status", "--wait", "--file", dir.resolve("typo.kvp").toString());

    assertThat(status.exit()).isEqualTo(3);
    assertThat(status.err()).contains("typo.kvp: no such file or directory");
  }
}
