package dev.kvprov.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.kvp.PoolFile;
import dev.kvprov.otel.KvpTelemetry;
import dev.kvprov.otel.KvprovAttributes;
import dev.kvprov.otel.ProvisioningReport;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A boot whose IMDS answered at the second attempt, as the agent records it: the attempt that
 * failed and was tried again is a warning, not a failure, in every command that shows it.
 */
class RetriedAttemptsTest {
  @TempDir Path dir;

  @BeforeEach
  void aBootThatRecovered() {
    PoolFile pool = PoolFile.open(dir, 1);
    try (KvpTelemetry telemetry = QuietTelemetry.into(pool).build()) {
      Span run = telemetry.tracer().spanBuilder("provision").startSpan();
      try (Scope ignored = run.makeCurrent()) {
        Span fetch = telemetry.tracer().spanBuilder("imds.fetch").startSpan();
        try (Scope inFetch = fetch.makeCurrent()) {
          telemetry
              .tracer()
              .spanBuilder("imds.attempt")
              .setAttribute(
                  KvprovAttributes.WARNING, "IMDS answered HTTP 503; trying again in 0.2 s")
              .startSpan()
              .end();
          telemetry.tracer().spanBuilder("imds.attempt").startSpan().end();
        }
        fetch.end();
      }
      run.end();
      telemetry.report(ProvisioningReport.success("kvprov/test", "vm", Instant.now()));
    }
  }

  @Test
  void list_showsTheRetriedAttempt_asAWarningWithItsReason_andNoError() {
    CliRun list = CliRun.of("list", "--wide", "--dir", dir.toString());

    assertThat(list.out())
        .containsPattern(
            "WARN +kvprov +imds\\.attempt warning \\d+\\.\\d{3}s: IMDS answered HTTP 503;"
                + " trying again in 0\\.2 s")
        .containsPattern("INFO +kvprov +imds\\.attempt ok \\d+\\.\\d{3}s\n")
        .doesNotContain("ERROR")
        .doesNotContain("FAILED");
  }

  @Test
  void tree_marksTheRetriedAttempt_asAWarning_notAFailure() {
    CliRun tree = CliRun.of("tree", "--dir", dir.toString());

    assertThat(tree.out())
        .containsPattern(
            "imds\\.attempt +\\[kvprov\\] warning: IMDS answered HTTP 503; trying again in 0\\.2 s")
        .containsPattern("imds\\.attempt +\\[kvprov\\] ok\n")
        .doesNotContain("FAILED");
    CliRun json = CliRun.of("tree", "--json", "--dir", dir.toString());
    assertThat(json.out()).contains("\"status\":\"ok\"").doesNotContain("\"status\":\"error\"");
  }

  @Test
  void statusAndReport_sayTheBootSucceeded() {
    assertThat(CliRun.of("status", "--dir", dir.toString()).out())
        .startsWith("status:   succeeded");
    CliRun report = CliRun.of("report", "--json", "--dir", dir.toString());
    assertThat(report.exit()).as(report.err()).isZero();
    assertThat(report.out()).contains("result=success");
  }
}
