package dev.kvprov.agent.os;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.OpenTelemetry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProcessCommandRunnerTest {
  private final ProcessCommandRunner runner =
      new ProcessCommandRunner(OpenTelemetry.noop().getTracer("t"));

  @Test
  void runsARealProcess_feedingStdin_andKeepingBothOutputsAndTheExitCode() throws Exception {
    CommandResult result =
        runner.run(
            List.of("sh", "-c", "read line; echo \"got $line\"; echo oops >&2; exit 3"),
            "secret-on-stdin\n".getBytes(StandardCharsets.UTF_8),
            Duration.ofSeconds(10));

    assertThat(result.exitCode()).isEqualTo(3);
    assertThat(result.stdout()).isEqualTo("got secret-on-stdin\n");
    assertThat(result.summary()).isEqualTo("exit 3: oops");
    assertThat(result.succeeded()).isFalse();
  }

  @Test
  void aCommandPastItsTimeout_isKilled() throws Exception {
    CommandResult result = runner.run(List.of("sleep", "30"), Duration.ofMillis(200));

    assertThat(result.exitCode()).isEqualTo(-1);
    assertThat(result.stderr()).contains("killed after");
    assertThat(result.elapsed()).isLessThan(Duration.ofSeconds(20));
  }

  @Test
  void passwordArguments_neverReachTelemetry() {
    assertThat(
            ProcessCommandRunner.shown(
                List.of("usermod", "-P", "/r", "-p", "$6$salt$hash", "azureuser")))
        .containsExactly("usermod", "-P", "/r", "-p", "[redacted]", "azureuser");
  }
}
