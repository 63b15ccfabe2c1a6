package dev.kvprov.agent.os;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.agent.SpanRecorder;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.SpanData;
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
    assertThat(ProcessCommandRunner.shown(List.of("/usr/sbin/useradd", "--password=x", "u")))
        .containsExactly("/usr/sbin/useradd", "--password=[redacted]", "u");
    assertThat(ProcessCommandRunner.shown(List.of("useradd", "--password", "plain", "u")))
        .containsExactly("useradd", "--password", "[redacted]", "u");
  }

  @Test
  void anotherProgramsDashP_isShown() {
    List<String> argv =
        List.of("systemctl", "show", "-p", "Id", "-p", "ActiveEnterTimestampMonotonic", "ssh");

    assertThat(ProcessCommandRunner.shown(argv)).isEqualTo(argv);
  }

  @Test
  void aPasswordHash_isHiddenWhereverItIs() {
    assertThat(
            ProcessCommandRunner.shown(
                List.of(
                    "tool",
                    "$6$rounds=5000$salt$abc/def.",
                    "azureuser:$y$j9T$salt$hash",
                    "--hash=$5$s$h",
                    "costs $5 a month")))
        .containsExactly("tool", "[redacted]", "[redacted]", "[redacted]", "costs $5 a month");
  }

  @Test
  void aQuestionAnsweredNo_endsItsSpanOk_withTheAnswer() {
    List<SpanData> spans =
        SpanRecorder.record(
            tracer -> {
              try {
                ProcessCommandRunner asking = new ProcessCommandRunner(tracer);
                assertThat(asking.ask(List.of("sh", "-c", "exit 3"), Duration.ofSeconds(10)))
                    .extracting(CommandResult::exitCode)
                    .isEqualTo(3);
                assertThat(asking.ask(List.of("true"), Duration.ofSeconds(10)).succeeded())
                    .isTrue();
              } catch (Exception e) {
                throw new AssertionError(e);
              }
            });

    assertThat(spans).extracting(s -> s.getStatus().getStatusCode()).containsOnly(StatusCode.UNSET);
    assertThat(spans)
        .extracting(s -> s.getAttributes().get(AttributeKey.stringKey("process.answer")))
        .containsExactly("no", "yes");
  }

  @Test
  void aQuestionThatCouldNotBeAnswered_andAFailedCommand_failTheirSpans() {
    List<SpanData> spans =
        SpanRecorder.record(
            tracer -> {
              try {
                ProcessCommandRunner asking = new ProcessCommandRunner(tracer);
                asking.ask(List.of("sh", "-c", "exit 127"), Duration.ofSeconds(10));
                asking.ask(List.of("sleep", "30"), Duration.ofMillis(100));
                asking.run(List.of("sh", "-c", "exit 3"), Duration.ofSeconds(10));
              } catch (Exception e) {
                throw new AssertionError(e);
              }
            });

    assertThat(spans).extracting(s -> s.getStatus().getStatusCode()).containsOnly(StatusCode.ERROR);
    assertThat(spans)
        .extracting(s -> s.getAttributes().get(AttributeKey.stringKey("process.answer")))
        .containsOnlyNulls();
  }
}
