package dev.kvprov.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.kvp.PoolFile;
import dev.kvprov.otel.KvpTelemetry;
import dev.kvprov.otel.KvprovAttributes;
import dev.kvprov.otel.ProvisioningReport;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A boot that could not reach the platform, as the agent records it: the span {@code
 * network.snapshot} with its one-line summary, and the report's {@code network} field. {@code kvp
 * tree} and {@code kvp report} show the summary as it is.
 */
class NetworkSnapshotTreeTest {
  static final String SUMMARY =
      "links eth0 down 00:0d:3a:5e:21:07; addresses none; route none; dns 127.0.0.53; lease"
          + " 168.63.129.16, 3 d old; imds no answer (connection refused); wireserver"
          + " failed (json health: connection refused)";

  @TempDir Path dir;

  @BeforeEach
  void aBootWithoutNetwork() {
    PoolFile pool = PoolFile.open(dir, 1);
    try (KvpTelemetry telemetry = QuietTelemetry.into(pool).build()) {
      Span run = telemetry.tracer().spanBuilder("provision").startSpan();
      try (Scope ignored = run.makeCurrent()) {
        telemetry
            .tracer()
            .spanBuilder("network.snapshot")
            .setAttribute("net.default_route", "none")
            .setAttribute(KvprovAttributes.SUMMARY, SUMMARY)
            .startSpan()
            .end();
      }
      run.setStatus(StatusCode.ERROR, "exit 20 (REPORT)");
      run.end();
      Map<String, String> supporting = new LinkedHashMap<>();
      supporting.put("step", "report_ready");
      supporting.put("network", SUMMARY);
      telemetry.report(
          ProvisioningReport.failure(
              "Failed to report ready", "kvprov/test", "vm", Instant.now(), supporting));
    }
  }

  @Test
  void tree_showsTheSnapshotsSummary_afterOk() {
    CliRun tree = CliRun.of("tree", "--dir", dir.toString());

    assertThat(tree.out())
        .contains("network.snapshot  [kvprov] ok: " + SUMMARY + "\n")
        .doesNotContain("warning:");
    CliRun json = CliRun.of("tree", "--json", "--dir", dir.toString());
    assertThat(json.out()).contains("\"summary\":\"links eth0 down 00:0d:3a:5e:21:07;");
  }

  @Test
  void report_showsTheNetworkField_plainly() {
    CliRun report = CliRun.of("report", "--dir", dir.toString());

    assertThat(report.exit()).isEqualTo(1);
    assertThat(report.out()).containsPattern("(?m)^network +links eth0 down 00:0d:3a:5e:21:07; ");
  }
}
