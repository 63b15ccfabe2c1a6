package dev.kvprov.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.kvprov.agent.sim.AzureSimulator;
import dev.kvprov.fixtures.HeldPool;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.otel.ProvisioningReport;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two runs of {@code kvprov provision} against a pool another writer holds locked: the first fails
 * (IMDS refuses, exit 10), the second succeeds; both hand their report to a late writer. Whichever
 * writer gets the lock last, the pool must end with the second run's verdict. The order is the
 * test's: the older run's writer is stopped ({@code SIGSTOP}) while the lock is released, and let
 * go once the newer one has written — the order that kept the failure. (Twenty races of the two
 * writers, both orders, are in {@code BackgroundPoolWriterTest}.)
 */
class NewestVerdictEndToEndTest {
  @TempDir Path dir;

  @Test
  void theOlderRunsLateWriter_comingLast_leavesTheNewerVerdictInPlace() throws Exception {
    assertThat(raceWithTheOlderWriterLast(dir)).isEqualTo("success");
  }

  /**
   * The race, from two real runs: returns the verdict the pool keeps ({@code success} or {@code
   * error}).
   */
  private static String raceWithTheOlderWriterLast(Path vm) throws Exception {
    Path root = TestVm.root(vm);
    Path media = TestVm.media(vm);
    PoolFile pool = PoolFile.open(Files.createDirectories(root.resolve("var/lib/hyperv")), 1);
    long older;
    long newer;
    HttpServer refusing =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    refusing.createContext(
        "/",
        exchange -> {
          byte[] body = "Bad request".getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(400, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    refusing.start();
    try (AzureSimulator simulator = AzureSimulator.builder().start();
        HeldPool held = HeldPool.hold(pool.path())) {
      String refused =
          "http://" + refusing.getAddress().getHostString() + ":" + refusing.getAddress().getPort();
      older = lateWriter(run(vm, root, media, refused, simulator, 10));
      newer = lateWriter(run(vm, root, media, simulator.imdsEndpoint().toString(), simulator, 0));
      signal("-STOP", older);
      try {
        held.release();
        awaitExit(newer);
      } finally {
        signal("-CONT", older);
      }
      awaitExit(older);
    } finally {
      refusing.stop(0);
    }
    return ProvisioningReport.parse(
                pool.read().records().stream()
                    .filter(r -> r.key().equals("PROVISIONING_REPORT"))
                    .findFirst()
                    .orElseThrow()
                    .value())
            .isSuccess()
        ? "success"
        : "error";
  }

  /** Runs {@code kvprov provision} in a process of its own; returns what it said. */
  private static List<String> run(
      Path vm, Path root, Path media, String imds, AzureSimulator simulator, int expectedExit)
      throws Exception {
    Path config = vm.resolve("kvprov-" + expectedExit + ".toml");
    Files.writeString(
        config,
        "[imds]\nendpoint = \""
            + imds
            + "\"\ntotal_retry_timeout_secs = 2\nretry_interval_secs = 0.1\n\n"
            + "[wireserver]\nendpoint = \""
            + simulator.wireserverEndpoint()
            + "\"\ntotal_retry_timeout_secs = 2\n\n"
            + "[telemetry]\nkvp_lock_timeout_secs = 0.2\nlate_records_wait_secs = 120\n");
    Path output = vm.resolve("provision-" + expectedExit + ".out");
    ProcessBuilder builder =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName(),
                "provision",
                "--root",
                root.toString(),
                "--config",
                config.toString(),
                "--media-dir",
                media.toString())
            .redirectErrorStream(true)
            .redirectOutput(output.toFile());
    builder.environment().remove("JOURNAL_STREAM");
    Process run = builder.start();
    assertThat(run.waitFor(120, TimeUnit.SECONDS)).isTrue();
    List<String> lines = Files.readAllLines(output);
    assertThat(run.exitValue()).as(String.join("\n", lines)).isEqualTo(expectedExit);
    return lines;
  }

  /** The pid of the late writer the run handed its records to. */
  private static long lateWriter(List<String> lines) {
    String handover =
        lines.stream()
            .filter(
                l -> l.contains("handed over late records") && l.contains("provisioning report"))
            .findFirst()
            .orElseThrow(() -> new AssertionError(String.join("\n", lines)));
    return Long.parseLong(handover.replaceAll(".*\\(pid (\\d+)\\).*", "$1"));
  }

  private static void signal(String signal, long pid) throws Exception {
    Process kill = new ProcessBuilder("kill", signal, Long.toString(pid)).inheritIO().start();
    assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(kill.exitValue()).isZero();
  }

  private static void awaitExit(long pid) {
    ProcessHandle.of(pid).ifPresent(p -> p.onExit().orTimeout(120, TimeUnit.SECONDS).join());
  }
}
