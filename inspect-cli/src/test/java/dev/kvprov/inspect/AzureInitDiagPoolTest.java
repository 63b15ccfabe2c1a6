package dev.kvprov.inspect;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvprov.fixtures.Fixtures;
import dev.kvprov.fixtures.HostTools;
import dev.kvprov.kvp.KvpRecord;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * azure-init's diagnostic records ({@code DIAG|…}, and the earlier {@code DIAG_V1|…}), read from
 * the reference pool the project's own writer of that format makes: a failed first boot with a
 * payload cut inside multi-byte characters, compressed payloads, an operation that never finished
 * and the report.
 */
class AzureInitDiagPoolTest {
  private static final String POOL = Fixtures.path(Fixtures.AZURE_INIT_DIAG_POOL).toString();

  @TempDir Path dir;

  @Test
  void theReferencePool_isWhatTheWriterWritesToday() throws Exception {
    HostTools.assumeInstalled("python3", "python3");
    Path python = Path.of("/usr/bin/python3");
    Path pool = dir.resolve("pool");
    Path expected = dir.resolve("expected.json");
    Process writer =
        new ProcessBuilder(
                python.toString(),
                Fixtures.path(Fixtures.AZURE_INIT_DIAG_WRITER).toString(),
                "sample",
                pool.toString(),
                expected.toString())
            .redirectErrorStream(true)
            .start();
    String said = new String(writer.getInputStream().readAllBytes(), UTF_8);
    assertThat(writer.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(writer.exitValue()).as(said).isZero();

    assertThat(Files.readAllBytes(pool))
        .as("rerun test-fixtures/write-azure-init-diag-pool")
        .isEqualTo(Fixtures.bytes(Fixtures.AZURE_INIT_DIAG_POOL));
    assertThat(Files.readString(expected))
        .isEqualTo(Fixtures.text(Fixtures.AZURE_INIT_DIAG_EXPECTED));
  }

  @Test
  void list_givesBackEveryPayloadAsWritten_piecesJoinedAndDecoded() throws Exception {
    JsonNode expected =
        new ObjectMapper().readTree(Fixtures.text(Fixtures.AZURE_INIT_DIAG_EXPECTED));
    CliRun run = CliRun.of("list", "--json", "--file", POOL);

    assertThat(run.exit()).as(run.err()).isZero();
    List<JsonNode> items = run.jsonLines();
    assertThat(items).hasSize(expected.size());
    int record = 0;
    for (int i = 0; i < items.size(); i++) {
      JsonNode item = items.get(i);
      JsonNode want = expected.get(i);
      assertThat(item.path("key").asText()).isEqualTo(want.path("key").asText());
      String payload = want.path("payload").asText();
      if (item.path("key").asText().contains("|none|") || !want.has("kind")) {
        assertThat(item.path("value").asText()).isEqualTo(payload);
      } else {
        // a compressed payload is kept as stored, and shown decoded
        assertThat(item.path("value").asText()).isNotEqualTo(payload);
        assertThat(item.path("event").path("message").asText()).isEqualTo(payload);
      }
      assertThat(item.path("problems")).as(item.toString()).isEmpty();
      int pieces = want.path("pieces").asInt(1);
      assertThat(item.path("records").size()).as(item.toString()).isEqualTo(pieces);
      assertThat(item.path("index").asInt()).isEqualTo(record);
      record += pieces;
      if (want.has("kind")) {
        assertThat(item.path("writer").asText()).isEqualTo("azure-init-diag");
        assertThat(item.path("event").path("type").asText()).isEqualTo(want.path("kind").asText());
        assertThat(item.path("event").path("name").asText()).isEqualTo(want.path("name").asText());
      }
    }
    JsonNode ovf = items.get(4);
    assertThat(ovf.path("records").toString()).isEqualTo("[4,5,6]");
    assertThat(ovf.path("value").asText()).contains("é", "hôte", "😀", "€€€");
    JsonNode bridged = items.get(8).path("event");
    assertThat(bridged.path("level").asText()).isEqualTo("ERROR");
    assertThat(bridged.path("status").asText()).isEqualTo("error");
    assertThat(bridged.path("message").asText()).isEqualTo("useradd failed: exit status 9");
    JsonNode finish = items.get(3).path("event");
    assertThat(finish.path("time").asText()).isEqualTo("2026-11-22T04:47:47.312Z");
    assertThat(finish.path("duration_s").asDouble()).isEqualTo(0.3);
    assertThat(finish.path("status").asText()).isEqualTo("ok");
    JsonNode earlier = items.get(12).path("event");
    assertThat(earlier.path("format").asText()).isEqualTo("DIAG_V1");
    assertThat(earlier.path("duration_s").asDouble()).as("52 µs").isEqualTo(0.000052);
  }

  @Test
  void list_level_keepsTheFailures() {
    CliRun run = CliRun.of("list", "--json", "--level", "ERROR", "--file", POOL);

    assertThat(run.jsonLines().stream().map(i -> i.path("event").path("name").asText()))
        .containsExactly(
            "src/provision/user.rs:88", "user:create", "provision:run", "PROVISIONING_REPORT");
  }

  @Test
  void tree_nestsOperationsByTime_failedAndHungOnesMarked() {
    CliRun run = CliRun.of("tree", "--file", POOL);

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out())
        .isEqualTo(
            """
              +0.000s    0.420s  provision:run  [azure-init-diag] FAILED: provisioning failed
              +0.012s    0.300s    imds:query  [azure-init-diag] ok
              +0.340s    0.064s    user:create  [azure-init-diag] FAILED: useradd: group 'wheel' does not exist
              +0.405s              ssh:keys  [azure-init-diag] STARTED, NEVER FINISHED
            """);
  }

  @Test
  void report_blame_timeline_export_doctor_readItLikeAnyWriter() throws Exception {
    CliRun report = CliRun.of("report", "--json", "--file", POOL);
    assertThat(report.exit()).isEqualTo(1);
    assertThat(report.json().path("fields").path("reason").asText()).isEqualTo("useradd failed");
    assertThat(report.json().path("fields").path("agent").asText()).isEqualTo("azure-init/0.1.1");

    CliRun blame = CliRun.of("blame", "--json", "--file", POOL);
    assertThat(blame.json().findValuesAsText("name"))
        .startsWith("provision:run", "imds:query", "user:create");

    CliRun timeline = CliRun.of("timeline", "--json", "--file", POOL);
    assertThat(timeline.exit()).as(timeline.err()).isZero();
    JsonNode rows = timeline.json().path("rows");
    assertThat(rows.size()).isEqualTo(14);
    assertThat(rows.get(0).path("time").asText()).isEqualTo("2026-11-22T04:47:47Z");

    Path otlp = dir.resolve("spans.jsonl");
    CliRun export = CliRun.of("export", "--otlp-json", otlp.toString(), "--file", POOL);
    assertThat(export.exit()).as(export.err()).isZero();
    assertThat(Files.readString(otlp)).contains("\"ssh:keys\"", "kvp.unfinished");

    CliRun doctor = CliRun.of("doctor", "--json", "--file", POOL);
    assertThat(doctor.json().path("problems")).as(doctor.out()).isEmpty();
    assertThat(doctor.exit()).isZero();
  }

  @Test
  void aPoolOfCloudInit_bothAzureInitFormats_andKvprov_readsAsOneBoot() throws Exception {
    RawPool raw = new RawPool().addBytes(Fixtures.bytes(Fixtures.CLOUD_INIT_POOL));
    raw.add(
        "azure-init-0.1.1|5c0ffee0-4d2b-4c3a-9e1f-0a1b2c3d4e5f|INFO|azure_init:provision|"
            + "0c1f9b1e-8a4d-4c1e-9d5f-000000000001",
        "Start: 2026-11-22T04:47:46.900Z | End: 2026-11-22T04:47:47.500Z");
    raw.addBytes(Fixtures.bytes(Fixtures.AZURE_INIT_DIAG_POOL));
    for (KvpRecord r :
        KvprovSpanRecords.end(
            KvprovSpanRecords.spanId(0),
            null,
            "provision",
            "2026-11-22T04:47:48.000Z",
            "2026-11-22T04:47:49.000Z")) {
      raw.add(r.key(), r.value());
    }
    Path pool = dir.resolve("mixed.kvp");
    Files.write(pool, raw.bytes());

    CliRun tree = CliRun.of("tree", "--json", "--file", pool.toString());
    assertThat(tree.exit()).as(tree.err()).isZero();
    List<JsonNode> roots = new ArrayList<>();
    tree.json().forEach(roots::add);
    assertThat(roots.stream().map(r -> r.path("writer").asText()))
        .as("one tree, every writer's spans in time order")
        .containsExactly("cloud-init", "cloud-init", "azure-init", "azure-init-diag", "kvprov");
    assertThat(roots.get(3).path("children").size()).isEqualTo(3);

    CliRun timeline = CliRun.of("timeline", "--json", "--file", pool.toString());
    JsonNode boot = timeline.json().path("boot");
    assertThat(boot.path("source").asText()).isEqualTo("cloud-init");
    assertThat(timeline.json().path("rows").findValuesAsText("writer"))
        .contains("cloud-init", "azure-init", "azure-init-diag", "kvprov", "report");

    CliRun doctor = CliRun.of("doctor", "--json", "--file", pool.toString());
    assertThat(doctor.json().path("problems")).as(doctor.out()).isEmpty();
  }

  /** One DIAG event whose payload is {@code value} as stored (encoded already). */
  private static String key(String name, String encoding, int piece) {
    return "DIAG|azure-init/0.1.1|5c0ffee0-4d2b-4c3a-9e1f-0a1b2c3d4e5f|event|"
        + name
        + "|0f0e0d0c-0b0a-4909-8807-06050403020"
        + name.length()
        + "|2026-11-22T04:47:47.000Z|"
        + encoding
        + "|||"
        + piece;
  }

  @Test
  void damagedRecords_eachSayWhat_andHideNoOther() throws Exception {
    ByteArrayOutputStream bomb = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(bomb)) {
      gz.write("é".repeat(4 << 20).getBytes(UTF_8)); // 8 MiB of text in a few KiB
    }
    String bombText = Base64.getEncoder().encodeToString(bomb.toByteArray());
    RawPool raw =
        new RawPool()
            .add("DIAG|too|few|fields|0", "x")
            .add(key("gap", "none", 0), "y".repeat(1022))
            .add(key("gap", "none", 2), "end")
            .add(key("notb64", "gz+b64", 0), "not base64 at all!");
    // 8 MiB in pieces: a payload kvp checks and shows in part, and decodes whole on request
    for (int at = 0, i = 0; at < bombText.length(); at += 1022, i++) {
      raw.add(
          key("bomb", "gz+b64", i), bombText.substring(at, Math.min(at + 1022, bombText.length())));
    }
    raw.add(key("unknown", "rot13", 0), "uryyb").add(key("fine", "none", 0), "still read");
    Path pool = dir.resolve("damaged.kvp");
    Files.write(pool, raw.bytes());

    CliRun run = CliRun.of("list", "--json", "--file", pool.toString());

    assertThat(run.exit()).isEqualTo(1);
    List<JsonNode> items = run.jsonLines();
    assertThat(items.stream().map(i -> i.path("problems").toString()))
        .containsExactly(
            "[]",
            "[\"piece 1 of the payload missing\"]",
            "[\"the gz+b64 payload is not base64\"]",
            "[]",
            "[\"an encoding kvp does not know (rot13)\"]",
            "[]");
    assertThat(items.get(0).path("writer").asText())
        .as("a key that only begins like azure-init's is another program's")
        .isEqualTo("other");
    String shown = items.get(3).path("event").path("message").asText();
    assertThat(shown).startsWith("ééé").endsWith("…[more than 16384 bytes: kvp decode shows them]");
    assertThat(shown.getBytes(UTF_8).length).isLessThan(17_000);
    assertThat(items.get(5).path("value").asText()).isEqualTo("still read");

    CliRun decode = CliRun.of("decode", "--json", "--file", pool.toString());
    JsonNode decoded =
        decode.jsonLines().stream().filter(d -> d.has("text")).findFirst().orElseThrow();
    assertThat(decoded.path("text").asText()).hasSize(4 << 20);
  }

  @Test
  void aFinishWhoseStartIsMissing_startsItsDurationEarlier() throws Exception {
    String finish =
        "DIAG|azure-init/0.1.1|vm|finish|imds:query|id|2026-11-22T04:47:48.500Z|none|fail|1.500000|0";
    Path pool = dir.resolve("finish.kvp");
    Files.write(pool, new RawPool().add(finish, "timed out").bytes());

    JsonNode span = CliRun.of("tree", "--json", "--file", pool.toString()).json().get(0);

    assertThat(Instant.parse(span.path("start").asText()))
        .isEqualTo(Instant.parse("2026-11-22T04:47:47Z"));
    assertThat(span.path("status").asText()).isEqualTo("error");
    assertThat(span.path("message").asText()).isEqualTo("timed out");
  }

  @Test
  void anErrorEvent_goesToTheOperationRunning_andLeavesAFinishedResultAlone() throws Exception {
    String prefix = "DIAG|azure-init/0.1.1|vm|";
    RawPool raw =
        new RawPool()
            .add(prefix + "start|provision:run|e1|2026-11-22T04:47:40.000Z|none|||0", "")
            .add(prefix + "start|ssh:keys|e2|2026-11-22T04:47:41.000Z|none|||0", "")
            .add(
                prefix + "event|ssh|e3|2026-11-22T04:47:42.000Z|none|fail||0",
                "cannot write authorized_keys")
            .add(
                prefix + "finish|provision:run|e1|2026-11-22T04:47:45.000Z|none|success|5.0|0",
                "done");
    Path pool = dir.resolve("hung.kvp");
    Files.write(pool, raw.bytes());

    JsonNode root = CliRun.of("tree", "--json", "--file", pool.toString()).json().get(0);

    assertThat(root.path("name").asText()).isEqualTo("provision:run");
    assertThat(root.path("status").asText()).as("its finish said success").isEqualTo("ok");
    JsonNode hung = root.path("children").get(0);
    assertThat(hung.path("name").asText()).isEqualTo("ssh:keys");
    assertThat(hung.path("status").asText()).isEqualTo("unfinished");
    assertThat(hung.path("message").asText()).isEqualTo("cannot write authorized_keys");
  }

  @Test
  void aPoolOfSmallCompressedBombs_isShownInBoundedMemory() throws Exception {
    java.io.ByteArrayOutputStream packed = new java.io.ByteArrayOutputStream();
    try (java.util.zip.DeflaterOutputStream z =
        new java.util.zip.DeflaterOutputStream(
            packed, new java.util.zip.Deflater(java.util.zip.Deflater.BEST_COMPRESSION))) {
      byte[] megabyte = new byte[1 << 20];
      java.util.Arrays.fill(megabyte, (byte) 'A');
      z.write(megabyte);
    }
    String bomb = Base64.getEncoder().encodeToString(packed.toByteArray());
    RawPool raw = new RawPool();
    for (int i = 0; i < 600; i++) {
      raw.add("DIAG|a|vm|event|bomb|e" + i + "|2026-11-22T04:47:47.000Z|zlib+b64|fail||0", bomb);
    }
    Path pool = dir.resolve("bombs.kvp");
    Files.write(pool, raw.bytes());

    CliRun list = CliRun.of("list", "--json", "--file", pool.toString());
    CliRun tree = CliRun.of("tree", "--file", pool.toString());

    assertThat(list.jsonLines()).hasSize(600);
    assertThat(list.out().length()).as("16 KiB shown an item, not 1 MiB").isLessThan(600 * 40_000);
    assertThat(tree.exit()).isZero();
  }
}
