package dev.kvprov.otel;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.kvp.PoolFile;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Telemetry in a real JVM process: killed, terminated, journaled, cut off from its collector. */
class TelemetryProcessTest {
  @TempDir Path dir;

  private Process start(Map<String, String> env, String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(TelemetryProcessMain.class.getName());
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().remove("JOURNAL_STREAM");
    builder.environment().remove("OTEL_EXPORTER_OTLP_ENDPOINT");
    builder.environment().putAll(env);
    builder.redirectError(dir.resolve("stderr.txt").toFile());
    return builder.start();
  }

  private static String firstLine(Process process) throws IOException {
    return new BufferedReader(new InputStreamReader(process.getInputStream(), UTF_8)).readLine();
  }

  private String stderr() throws IOException {
    return Files.readString(dir.resolve("stderr.txt"));
  }

  private List<KvprovRecord> records() throws IOException {
    return KvpRecordFormat.decode(PoolFile.open(dir.resolve("hyperv"), 1).read().records())
        .records()
        .stream()
        .map(KvpRecordFormat.DecodedRecord::record)
        .toList();
  }

  @Test
  void aProcessKilledMidStep_leavesItsStepsStartedAndNeverFinished() throws Exception {
    Process process = start(Map.of(), "hang", dir.resolve("hyperv").toString());
    try {
      assertThat(firstLine(process)).isEqualTo("started");
    } finally {
      process.destroyForcibly().waitFor(); // SIGKILL: no hook, no flush
    }

    List<KvprovRecord> records = records();
    assertThat(records)
        .extracting(r -> r.kind() + " " + r.name().orElseThrow())
        .containsExactly("START provision", "START media.read_ovf");
    assertThat(records.get(1).parentSpanId()).isEqualTo(records.get(0).spanId());
  }

  @Test
  void sigterm_runsTheShutdownHook_whichDeliversWhatOtlpHadQueued() throws Exception {
    try (OtlpReceiver receiver = new OtlpReceiver(0)) {
      Process process =
          start(Map.of(), "sigterm", dir.resolve("hyperv").toString(), receiver.baseUrl());
      assertThat(firstLine(process)).isEqualTo("ready");

      process.destroy(); // SIGTERM
      assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("exited after SIGTERM").isTrue();

      assertThat(receiver.spans()).extracting(Span::getName).containsExactly("before-sigterm");
      assertThat(records())
          .extracting(r -> r.kind() + " " + r.name().orElseThrow())
          .containsExactly("START before-sigterm", "END before-sigterm");
    }
  }

  @Test
  void onTheJournal_everyLineCarriesItsSyslogPriority() throws Exception {
    Path stderrFile = dir.resolve("stderr.txt");
    Files.createFile(stderrFile);
    String stream =
        Files.getAttribute(stderrFile, "unix:dev")
            + ":"
            + Files.getAttribute(stderrFile, "unix:ino");

    Process process =
        start(Map.of("JOURNAL_STREAM", stream), "once", dir.resolve("hyperv").toString());
    assertThat(firstLine(process)).isEqualTo("closed");
    process.waitFor();

    assertThat(stderr().lines().toList())
        .hasSize(2)
        .allMatch(l -> l.startsWith("<6>["))
        .anyMatch(l -> l.endsWith("once: started"));
  }

  @Test
  void withAStaleJournalStream_linesStayPlain() throws Exception {
    Process process =
        start(Map.of("JOURNAL_STREAM", "1:2"), "once", dir.resolve("hyperv").toString());
    assertThat(firstLine(process)).isEqualTo("closed");
    process.waitFor();

    assertThat(stderr().lines().toList()).hasSize(2).allMatch(l -> l.startsWith("["));
  }

  @Test
  void anUnreachableCollector_isOneReadableLine_notTheSdksOwnLogging() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    Process process =
        start(Map.of(), "once", dir.resolve("hyperv").toString(), "http://127.0.0.1:" + closedPort);
    assertThat(firstLine(process)).isEqualTo("closed");
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();

    String err = stderr();
    assertThat(err.split("the OTLP sink failed", -1)).hasSize(2);
    assertThat(err).doesNotContain("SEVERE").doesNotContain("WARNING:").doesNotContain("\tat ");
    assertThat(err.lines()).allMatch(l -> l.startsWith("[") || l.startsWith("kvprov telemetry:"));
    assertThat(records()).hasSize(2);
  }
}
