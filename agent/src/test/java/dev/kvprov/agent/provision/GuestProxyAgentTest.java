package dev.kvprov.agent.provision;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.agent.SpanRecorder;
import dev.kvprov.agent.os.ProcessCommandRunner;
import dev.kvprov.agent.os.SystemRoot;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The proxy agent's status asked of a real program in a root, as cloud-init asks it. */
class GuestProxyAgentTest {
  private static final Tracer TRACER = OpenTelemetry.noop().getTracer("t");

  @TempDir Path root;

  private void program(String dir, String script) throws Exception {
    Path program = Files.createDirectories(root.resolve(dir)).resolve("azure-proxy-agent");
    Files.writeString(program, "#!/bin/sh\n" + script);
    Files.setPosixFilePermissions(program, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  private GuestProxyAgent.Status check(Duration wait) throws Exception {
    return GuestProxyAgent.check(
        new SystemRoot(root), new ProcessCommandRunner(TRACER), TRACER, wait);
  }

  @Test
  void aProxyAgentThatNeverAnswers_isKilled_andSaidToHaveTimedOut() throws Exception {
    program("usr/bin", "exec sleep 600\n");

    GuestProxyAgent.Status status = check(Duration.ZERO);

    assertThat(status.word()).isEqualTo("timeout");
    assertThat(status.detail()).isEqualTo("azure-proxy-agent --status gave no answer within 0 s");
  }

  @Test
  void theProxyAgentInSbin_isFound_andItsStdoutSaysWhyWhenStderrIsEmpty() throws Exception {
    program("usr/sbin", "echo 'eBPF program not attached'\nexit 1\n");

    GuestProxyAgent.Status status = check(Duration.ofSeconds(5));

    assertThat(status.ready()).isFalse();
    assertThat(status.detail())
        .isEqualTo("azure-proxy-agent --status exited 1: eBPF program not attached");
  }

  @Test
  void theImagesProgram_isNamedInItsSpan_notByItsPathOnThisMachine() throws Exception {
    program("usr/bin", "exit 0\n");

    List<SpanData> spans =
        SpanRecorder.record(
            tracer -> {
              try {
                GuestProxyAgent.check(
                    new SystemRoot(root),
                    new ProcessCommandRunner(tracer),
                    tracer,
                    Duration.ofSeconds(5));
              } catch (InterruptedException e) {
                throw new AssertionError(e);
              }
            });

    assertThat(spans)
        .extracting(SpanData::getName)
        .containsExactly("exec azure-proxy-agent", "provision.gpa");
  }

  @Test
  void notFound_andAStatusThatFailed_areReportedForWhatTheyAre() throws Exception {
    GuestProxyAgent.Status missing = check(Duration.ofSeconds(5));
    program("usr/bin", "exit 2\n");
    GuestProxyAgent.Status failed = check(Duration.ofSeconds(5));
    program("usr/bin", "exec sleep 600\n");
    GuestProxyAgent.Status timeout = check(Duration.ZERO);

    assertThat(missing.word()).isEqualTo("missing");
    assertThat(missing.reason()).isEqualTo("Guest Proxy Agent not found");
    assertThat(failed.word()).isEqualTo("failed");
    assertThat(failed.reason()).isEqualTo("Guest Proxy Agent status failed");
    // cloud-init's status failure covers the proxy agent's own wait running out too
    assertThat(timeout.reason()).isEqualTo("Guest Proxy Agent status failed");
  }
}
