package dev.kvprov.kvp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvprov.fixtures.Fixtures;
import dev.kvprov.fixtures.HostTools;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The real cloud-init 22.4.2 KVP handler (Debian 12's, unpacked by {@code .ci/setup-cloud-init.sh})
 * writes to the same pool as our writer, at the same time, driven by the project's own driver
 * ({@link Fixtures#CLOUD_INIT_DRIVER}); and it writes the committed sample pool byte for byte.
 */
class CloudInitInteropTest {
  private static final int CLOUD_INIT_STEPS = 1000;
  private static final int OURS = 3000;

  @TempDir Path dir;
  private static Path distPackages;

  /**
   * Finds cloud-init unpacked by {@code .ci/setup-cloud-init.sh}, running the script when it is
   * missing (it downloads Debian packages into a cache folder and installs nothing). Where that
   * cannot work (no apt), the tests are skipped, unless {@code KVPROV_REQUIRE_INTEROP} is set, as
   * in CI.
   */
  @BeforeAll
  static void findCloudInit() throws Exception {
    HostTools.assumeInstalled("python3", "python3");
    String configured = System.getenv("KVPROV_CLOUDINIT_ROOT");
    Path root =
        configured != null
            ? Path.of(configured)
            : Path.of(System.getProperty("user.home"), ".cache", "kvprov", "cloud-init");
    distPackages = root.resolve("usr/lib/python3/dist-packages");
    Path handler = distPackages.resolve("cloudinit/reporting/handlers.py");
    String setupOutput = "";
    if (!Files.isRegularFile(handler)) {
      Process setup =
          new ProcessBuilder(
                  TestPaths.repository(".ci/setup-cloud-init.sh").toString(), root.toString())
              .redirectErrorStream(true)
              .start();
      setupOutput = new String(setup.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      setup.waitFor(5, TimeUnit.MINUTES);
    }
    boolean present = Files.isRegularFile(handler);
    String hint =
        "cloud-init is not unpacked in "
            + root
            + " and .ci/setup-cloud-init.sh failed:\n"
            + setupOutput;
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
                    Fixtures.path(Fixtures.CLOUD_INIT_DRIVER).toString(),
                    "events",
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
    assertThat(keysAsCloudInitReadsThem(file))
        .containsExactlyElementsOf(snapshot.entries().stream().map(PoolEntry::key).toList());
  }

  @Test
  void theCommittedCloudInitPool_isWhatCloudInitWritesToday_byteForByte() throws Exception {
    Path file = dir.resolve(".kvp_pool_1");

    List<String> output = driver("sample", distPackages.toString(), file.toString());

    assertThat(output).containsExactly(file + ": 12 records; cloud-init's reader agrees");
    assertThat(Files.readAllBytes(file))
        .as("rewrite it with test-fixtures/write-cloud-init-pool and review the diff")
        .isEqualTo(Fixtures.bytes(Fixtures.CLOUD_INIT_POOL));
  }

  @Test
  void cloudInitsSample_betweenOurWrites_decodesWhole_andCloudInitReadsOurRecords()
      throws Exception {
    Path file = dir.resolve(".kvp_pool_1");
    PoolFile pool = PoolFile.builder().file(file).build();
    pool.append(PeerRecords.record("kvprov", 0));

    List<String> output = driver("sample", distPackages.toString(), file.toString());
    pool.append(PeerRecords.record("kvprov", 1));
    pool.upsert(new KvpRecord("PROVISIONING_REPORT", "result=success|agent=kvprov/test"));

    // The driver's own cross-check (cloud-init's reader against its decoder) covered our record.
    assertThat(output).containsExactly(file + ": 13 records; cloud-init's reader agrees");
    PoolSnapshot snapshot = pool.read();
    assertThat(snapshot.problems()).isEmpty();
    List<String> keys = snapshot.entries().stream().map(PoolEntry::key).toList();
    assertThat(keys).hasSize(15);
    assertThat(keys.get(0)).isEqualTo("kvprov|0");
    assertThat(keys.subList(1, 13)).allMatch(k -> k.startsWith("CLOUD_INIT|"));
    assertThat(keys.subList(13, 15)).containsExactly("kvprov|1", "PROVISIONING_REPORT");
    assertThat(snapshot.entries().get(1).value()).contains("\"name\":\"azure-ds/crawl_metadata\"");
    assertThat(keysAsCloudInitReadsThem(file)).containsExactlyElementsOf(keys);
  }

  @Test
  void ourRecordCutShort_thenCloudInitAppending_hidesNoneOfItsRecords_andOurNextWriteRealigns()
      throws Exception {
    Path file = dir.resolve(".kvp_pool_1");
    PoolFile pool = PoolFile.builder().file(file).build();
    pool.append(PeerRecords.record("kvprov", 0));
    // Killed mid-write: 1,536 bytes of the next record.
    byte[] cut = RecordCodec.encode(PeerRecords.record("kvprov", 1), KvpLimits.WIRE);
    Files.write(file, java.util.Arrays.copyOf(cut, 1536), java.nio.file.StandardOpenOption.APPEND);
    try (Peers.Peer cloudInit =
        Peers.start(
            List.of(
                Peers.PYTHON,
                Fixtures.path(Fixtures.CLOUD_INIT_DRIVER).toString(),
                "events",
                distPackages.toString(),
                file.toString(),
                "5"))) {
      cloudInit.expectLine("ready");
      cloudInit.send("go");
      cloudInit.awaitSuccess(120);
    }

    PoolSnapshot read = pool.read();
    assertThat(read.entries()).hasSize(11).allMatch(PoolEntry::intact);
    assertThat(read.entries().subList(1, 11)).allMatch(e -> e.key().startsWith("CLOUD_INIT|"));
    assertThat(read.problems())
        .extracting(KvpProblem::kind)
        .containsExactly(KvpProblem.Kind.TORN_RECORD);

    pool.append(PeerRecords.record("kvprov", 2));

    List<String> keys = pool.read().entries().stream().map(PoolEntry::key).toList();
    assertThat(pool.read().problems()).isEmpty();
    assertThat(keys).hasSize(12).startsWith("kvprov|0").endsWith("kvprov|2");
    // cloud-init's own reader, on the grid again, sees every record too.
    assertThat(keysAsCloudInitReadsThem(file)).containsExactlyElementsOf(keys);
  }

  /**
   * A record of ours cut short after its value's last byte (the key field and the value written,
   * not the NULs after it) or inside its value, then ten records of cloud-init's real handler, then
   * our next write: of each size class, up to the longest value a field holds.
   */
  @ParameterizedTest(name = "value of {0} bytes, cut after {1}")
  @CsvSource({
    "0, 512",
    "1000, 1512",
    "1535, 2047",
    "1536, 2048",
    "1536, 1800",
    "1800, 2312",
    "2047, 2559",
    "2047, 2100"
  })
  void ourLongRecordCutShort_thenCloudInit_thenOurAppend_keepsEveryRecordOnce(
      int valueBytes, int cut) throws Exception {
    Path file = dir.resolve(".kvp_pool_1");
    PoolFile pool = PoolFile.builder().file(file).limits(KvpLimits.WIRE).build();
    pool.append(PeerRecords.record("kvprov", 0));
    KvpRecord torn = new KvpRecord("kvprov|torn", "v".repeat(valueBytes));
    byte[] cutShort = Arrays.copyOf(RecordCodec.encode(torn, KvpLimits.WIRE), cut);
    Files.write(file, cutShort, StandardOpenOption.APPEND);
    try (Peers.Peer cloudInit =
        Peers.start(
            List.of(
                Peers.PYTHON,
                Fixtures.path(Fixtures.CLOUD_INIT_DRIVER).toString(),
                "events",
                distPackages.toString(),
                file.toString(),
                "5"))) {
      cloudInit.expectLine("ready");
      cloudInit.send("go");
      cloudInit.awaitSuccess(120);
    }

    PoolSnapshot before = pool.read();
    assertThat(before.entries()).hasSize(11).allMatch(PoolEntry::intact);
    assertThat(before.entries().subList(1, 11)).allMatch(e -> e.key().startsWith("CLOUD_INIT|"));
    assertThat(before.problems())
        .singleElement()
        .satisfies(p -> assertThat(p.offset()).isEqualTo(RecordCodec.RECORD_SIZE));

    pool.append(PeerRecords.record("kvprov", 1));

    PoolSnapshot after = pool.read();
    assertThat(after.problems()).isEmpty();
    List<String> keys = after.entries().stream().map(PoolEntry::key).toList();
    assertThat(keys).hasSize(12).startsWith("kvprov|0").endsWith("kvprov|1");
    ObjectMapper json = new ObjectMapper();
    List<String> events = new ArrayList<>();
    for (PoolEntry entry : after.entries().subList(1, 11)) {
      assertThat(entry.key()).startsWith("CLOUD_INIT|");
      JsonNode event = json.readTree(entry.value());
      events.add(event.get("type").asText() + " " + event.get("name").asText());
    }
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      expected.addAll(List.of("start interop/step-" + i, "finish interop/step-" + i));
    }
    assertThat(events).containsExactlyElementsOf(expected);
    assertThat(keysAsCloudInitReadsThem(file)).containsExactlyElementsOf(keys);
  }

  private static List<String> keysAsCloudInitReadsThem(Path file) throws Exception {
    return driver("read", distPackages.toString(), file.toString());
  }

  /** Runs the project's cloud-init driver to the end: its stdout lines. */
  private static List<String> driver(String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Peers.PYTHON);
    command.add(Fixtures.path(Fixtures.CLOUD_INIT_DRIVER).toString());
    command.addAll(List.of(args));
    List<String> lines = new ArrayList<>();
    try (Peers.Peer driver = Peers.start(command)) {
      for (String line; (line = driver.readLine()) != null; ) {
        lines.add(line);
      }
      driver.awaitSuccess(120);
    }
    return lines;
  }
}
