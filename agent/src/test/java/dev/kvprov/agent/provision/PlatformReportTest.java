package dev.kvprov.agent.provision;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.agent.config.AgentConfig;
import dev.kvprov.agent.os.SystemRoot;
import dev.kvprov.agent.state.VerdictGenerations;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.VmId;
import dev.kvprov.otel.KvpTelemetry;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PlatformReportTest {
  @Test
  void aSnapshotThatThrows_losesNotTheFailureReport_itRidesOn(@TempDir Path dir) throws Exception {
    PoolFile pool = PoolFile.open(dir, 1);
    try (KvpTelemetry telemetry =
        KvpTelemetry.builder()
            .vmId(new VmId(VmId.UNKNOWN, "test"))
            .kvp(pool)
            .noStderrMirror()
            .environment(Map.of())
            .build()) {
      PlatformReport platform =
          new PlatformReport(
              new AgentConfig.Wireserver(
                  URI.create("http://127.0.0.1:9/"),
                  "json",
                  Duration.ofMillis(200),
                  Duration.ofMillis(200),
                  Duration.ofMillis(400)),
              telemetry,
              VerdictGenerations.in(dir.resolve("state")),
              new VmId(VmId.UNKNOWN, "test"),
              "0.1.0");
      platform.withNetworkSnapshot(
          new SystemRoot(dir.resolve("root")),
          () -> {
            throw new IllegalStateException("a flaw in the snapshot");
          },
          Optional.of("refused"));

      assertThat(platform.failed("Provisioning failed", Map.of("step", "user"), true)).isTrue();
    }

    String report =
        pool.read().records().stream()
            .filter(r -> r.key().equals("PROVISIONING_REPORT"))
            .map(KvpRecord::value)
            .findFirst()
            .orElseThrow();
    assertThat(report)
        .startsWith("result=error|reason=Provisioning failed|")
        .contains("|step=user|")
        .contains("|network=not taken (an internal error)|")
        .doesNotContain("IllegalStateException")
        .doesNotContain("a flaw in the snapshot");
  }
}
