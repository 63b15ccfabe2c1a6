package dev.kvprov.kvp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real cloud-init 22.4.2 KVP handler (Debian 12's, unpacked by {@code .ci/setup-cloud-init.sh})
 * writes to the same pool as our writer, at the same time.
 */
class CloudInitInteropTest {
  private static final int CLOUD_INIT_STEPS = 1000;
  private static final int OURS = 3000;

  @TempDir Path dir;
  private static Path distPackages;

  @BeforeAll
  static void findCloudInit() {
    String configured = System.getenv("KVPROV_CLOUDINIT_ROOT");
    Path root =
        configured != null
            ? Path.of(configured)
            : Path.of(System.getProperty("user.home"), ".cache", "kvprov", "cloud-init");
    distPackages = root.resolve("usr/lib/python3/dist-packages");
    boolean present = Files.isRegularFile(distPackages.resolve("cloudinit/reporting/handlers.py"));
    String hint = "cloud-init is not unpacked in " + root + ": run .ci/setup-cloud-init.sh";
    if (System.getenv("KVPROV_REQUIRE_INTEROP") != null) {
      assertThat(present).as(hint).isTrue();
    }
    Assumptions.assumeTrue(present, hint);
  }

  @Test
  void cloudInitAndOurWriter_appendingTogether_bothKeepEveryRecord() throws Exception {
    Path file = dir.resolve(".kvp_pool_1");
    Files.createFile(file); // fresh this boot, so cloud-init's start-up truncation leaves it alone
    try (Peers.Peer ours =
            Peers.jvm(
                PoolWriterMain.class, List.of(), file.toString(), "kvprov", "" + OURS, "5", "1");
        Peers.Peer cloudInit =
            Peers.start(
                List.of(
                    Peers.PYTHON,
                    TestPaths.resource("cloudinit_events.py").toString(),
                    "write",
                    distPackages.toString(),
                    file.toString(),
                    "" + CLOUD_INIT_STEPS))) {
      ours.expectLine("ready");
      cloudInit.expectLine("ready");
      cloudInit.send("go");
      ours.send("go");
      cloudInit.awaitSuccess(120);
      ours.awaitSuccess(120);
    }

    PoolSnapshot snapshot = PoolFile.builder().file(file).build().read();
    assertThat(snapshot.problems()).isEmpty();
    assertThat(snapshot.entries()).hasSize(OURS + 2 * CLOUD_INIT_STEPS);
    PoolVerifier.assertComplete(
        PoolVerifier.positions(snapshot, List.of("kvprov")), "kvprov", OURS);

    ObjectMapper json = new ObjectMapper();
    Set<String> events = new HashSet<>();
    for (PoolEntry entry : snapshot.entries()) {
      if (entry.key().startsWith("CLOUD_INIT|")) {
        JsonNode event = json.readTree(entry.value());
        assertThat(entry.key()).contains("|" + event.get("type").asText() + "|");
        events.add(event.get("type").asText() + " " + event.get("name").asText());
      }
    }
    for (int i = 0; i < CLOUD_INIT_STEPS; i++) {
      assertThat(events).contains("start interop/step-" + i, "finish interop/step-" + i);
    }
    assertThat(PoolVerifier.writerSwitches(snapshot)).as("the writers overlapped").isGreaterThan(2);

    // cloud-init's own reader sees the same records, ours included, in the same order.
    List<String> cloudInitView = new ArrayList<>();
    try (Peers.Peer reader =
        Peers.start(
            List.of(
                Peers.PYTHON,
                TestPaths.resource("cloudinit_events.py").toString(),
                "read",
                distPackages.toString(),
                file.toString()))) {
      for (String line; (line = reader.readLine()) != null; ) {
        cloudInitView.add(line);
      }
      reader.awaitSuccess(60);
    }
    assertThat(cloudInitView)
        .containsExactlyElementsOf(snapshot.entries().stream().map(PoolEntry::key).toList());
  }
}
