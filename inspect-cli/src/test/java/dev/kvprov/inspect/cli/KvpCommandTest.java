package dev.kvprov.inspect.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvprov.fixtures.Fixtures;
import dev.kvprov.inspect.CliRun;
import dev.kvprov.inspect.QuietTelemetry;
import dev.kvprov.inspect.writers.CloudInitWriter;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.otel.KvpTelemetry;
import dev.kvprov.otel.ProvisioningReport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

public class KvpCommandTest {
  public static final Path CLOUD_INIT_POOL = Fixtures.path(Fixtures.CLOUD_INIT_POOL);

  @TempDir Path dir;

  private static KvpTelemetry telemetry(PoolFile pool) {
    return QuietTelemetry.into(pool).build();
  }

  @Test
  void everyCommandsSummary_inKvpHelp_isAWholeSentence() {
    CliRun run = CliRun.of("--help");
    assertThat(run.exit()).isZero();
    String commands = run.out().substring(run.out().indexOf("Commands:\n") + 10);
    commands = commands.substring(0, commands.indexOf("\n\n"));
    // One entry a command; its continuation lines are indented deeper.
    List<String> summaries = new java.util.ArrayList<>();
    for (String line : commands.lines().toList()) {
      if (line.matches("  \\S.*")) {
        summaries.add(line.strip().replaceFirst("^\\S+\\s+", ""));
      } else {
        int last = summaries.size() - 1;
        summaries.set(last, summaries.get(last) + " " + line.strip());
      }
    }
    assertThat(summaries).hasSizeGreaterThan(10).allSatisfy(s -> assertThat(s).endsWith("."));
  }

  @Test
  void list_cloudInitPool_reassemblesChunkedEventsExactly() throws Exception {
    CliRun run = CliRun.of("list", "--json", "--file", CLOUD_INIT_POOL.toString());
    assertThat(run.exit()).isZero();

    List<JsonNode> items = run.jsonLines();
    assertThat(items).hasSize(7);
    assertThat(items).allMatch(i -> i.path("writer").asText().equals("cloud-init"));
    JsonNode chunked = items.get(5);
    assertThat(chunked.path("records").toString()).isEqualTo("[5,6,7,8]");
    assertThat(chunked.path("key").asText())
        .isEqualTo(
            "CLOUD_INIT|1795322355|diagnostic|diagnostic message|eb00d9d9-0ace-4c5c-8cd1-3cce2d754b58");
    assertThat(chunked.path("event").path("msg").asText())
        .isEqualTo("line with \"quotes\" and \\backslash\\ and café\n".repeat(60));
    JsonNode dmesg = items.get(6);
    assertThat(dmesg.path("records").toString()).isEqualTo("[9,10,11]");
    assertThat(dmesg.path("event").path("msg").asText())
        .startsWith("{\"encoding\": \"gz+b64\", \"data\": \"");
    assertThat(items.get(4).path("event").path("result").asText()).isEqualTo("FAIL");
  }

  @Test
  void list_ourOwnPool_putsSplitRecordsBackTogether() throws Exception {
    PoolFile pool = PoolFile.open(dir, 1);
    try (KvpTelemetry telemetry = telemetry(pool)) {
      telemetry
          .tracer()
          .spanBuilder("big")
          .setAttribute("log", "é|x".repeat(600))
          .startSpan()
          .end();
    }
    List<KvpRecord> records = pool.read().records();
    assertThat(records.size()).isGreaterThan(3);

    CliRun run = CliRun.of("list", "--json", "--dir", dir.toString());
    assertThat(run.exit()).isZero();

    List<JsonNode> items = run.jsonLines();
    assertThat(items).hasSize(2);
    JsonNode end = items.get(1);
    assertThat(end.path("writer").asText()).isEqualTo("kvprov");
    // The attribute was set at start, so both the start and the end record were split.
    assertThat(items.get(0).path("records").size() + end.path("records").size())
        .isEqualTo(records.size());
    assertThat(end.path("records").size()).isGreaterThan(1);
    assertThat(end.path("value").asText()).contains("Attr: log=" + "é\\|x".repeat(600));
  }

  @Test
  void list_readsAPoolFromStdin_andFilters() throws Exception {
    System.setIn(Files.newInputStream(CLOUD_INIT_POOL));
    CliRun run;
    try {
      run = CliRun.of("list", "--file", "-", "--grep", "failing_step");
      assertThat(run.exit()).isZero();
    } finally {
      System.setIn(new java.io.ByteArrayInputStream(new byte[0]));
    }
    assertThat(run.out().lines().filter(l -> l.contains("cloud-init"))).hasSize(2);
  }

  @Test
  void report_exitStatusSaysSuccessFailureOrNone() throws Exception {
    PoolFile pool = PoolFile.open(dir, 1);
    CliRun run = CliRun.of("report", "--dir", dir.toString());
    assertThat(run.exit()).isEqualTo(3); // no pool at all: an I/O error

    pool.append(new KvpRecord("other", "x"));
    run = CliRun.of("report", "--dir", dir.toString());
    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.out()).contains("no PROVISIONING_REPORT");

    pool.upsert(
        new KvpRecord(
            "PROVISIONING_REPORT",
            ProvisioningReport.failure(
                    "User creation failed",
                    "kvprov/0.1.0",
                    "vm",
                    Instant.parse("2026-01-01T00:00:00Z"),
                    Map.of("step", "user"))
                .encode()));
    run = CliRun.of("report", "--json", "--dir", dir.toString());
    assertThat(run.exit()).isEqualTo(1);
    JsonNode report = run.json();
    assertThat(report.path("fields").path("reason").asText()).isEqualTo("User creation failed");
    assertThat(report.path("raw").asText()).startsWith("result=error|");

    pool.upsert(
        new KvpRecord(
            "PROVISIONING_REPORT",
            "result=success|agent=Azure-Init/0.1|pps_type=None|vm_id=vm|timestamp=t"));
    run = CliRun.of("report", "--dir", dir.toString());
    assertThat(run.exit()).isZero();
    assertThat(run.out()).contains("agent      Azure-Init/0.1");
  }

  @Test
  void damage_isShownWithItsOffset_andTheExitStatusSaysSo() throws Exception {
    byte[] pool = Files.readAllBytes(CLOUD_INIT_POOL);
    pool[2560 + 512 + 3] = (byte) 0xFF; // invalid UTF-8 inside record 1's value
    Path damaged = dir.resolve("damaged");
    Files.write(damaged, pool);

    CliRun run = CliRun.of("list", "--file", damaged.toString());
    assertThat(run.exit()).isEqualTo(1);

    assertThat(run.out()).contains("! offset 3075 (record 1): VALUE_INVALID_UTF8");
    assertThat(new String(Files.readAllBytes(damaged), UTF_8)).isNotEmpty();
  }

  @Test
  void doctor_aHealthyPool_isHealthy() {
    CliRun run = CliRun.of("doctor", "--file", CLOUD_INIT_POOL.toString());
    assertThat(run.exit()).isZero();
    assertThat(run.out()).contains("12 records, healthy");
  }

  @Test
  void doctor_namesEveryKindOfDamage_withRecordAndOffset() throws Exception {
    Path file = dir.resolve(".kvp_pool_1");
    PoolFile pool = PoolFile.builder().file(file).limits(dev.kvprov.kvp.KvpLimits.WIRE).build();
    pool.append(
        List.of(
            new KvpRecord("ok", "fine"),
            new KvpRecord("k".repeat(300), "v"),
            new KvpRecord("long", "v".repeat(1500)),
            new KvpRecord("OK", "the same key to the host")));
    byte[] bytes = Files.readAllBytes(file);
    byte[] torn = java.util.Arrays.copyOf(bytes, bytes.length + 10);
    torn[torn.length - 10] = 'x';
    Files.write(file, torn);
    Files.setPosixFilePermissions(
        file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-rw-rw-"));

    CliRun run = CliRun.of("doctor", "--json", "--file", file.toString());
    assertThat(run.exit()).isEqualTo(1);

    JsonNode report = run.json();
    assertThat(report.path("healthy").asBoolean()).isFalse();
    List<String> kinds = new ArrayList<>();
    report
        .path("problems")
        .forEach(
            p ->
                kinds.add(
                    p.path("kind").asText()
                        + "@"
                        + p.path("record").asInt()
                        + ":"
                        + p.path("offset").asLong()));
    assertThat(kinds)
        .containsExactlyInAnyOrder(
            "key_cut_by_host@1:2560",
            "value_cut_by_host@2:5632",
            "duplicate_key@3:7680",
            "trailing_partial_record@4:10240",
            "file_mode@-1:-1");
  }

  @Test
  void tree_rebuildsOurSpans_byParent_markingFailedAndUnfinishedOnes() throws Exception {
    PoolFile pool = PoolFile.open(dir, 1);
    try (KvpTelemetry telemetry = telemetry(pool)) {
      var root = telemetry.tracer().spanBuilder("provision").startSpan();
      try (var scope = root.makeCurrent()) {
        telemetry.tracer().spanBuilder("imds.fetch").startSpan().end();
        var user = telemetry.tracer().spanBuilder("user.create").startSpan();
        user.setStatus(io.opentelemetry.api.trace.StatusCode.ERROR, "useradd exited 9");
        user.end();
        telemetry.tracer().spanBuilder("hangs").startSpan(); // never ended: killed mid-step
      }
      root.end();
    }

    CliRun run = CliRun.of("tree", "--json", "--dir", dir.toString());
    assertThat(run.exit()).isZero();

    JsonNode tree = run.json();
    assertThat(tree).hasSize(1);
    JsonNode provision = tree.get(0);
    assertThat(provision.path("name").asText()).isEqualTo("provision");
    List<String> children = new ArrayList<>();
    provision
        .path("children")
        .forEach(c -> children.add(c.path("name").asText() + "=" + c.path("status").asText()));
    assertThat(children).containsExactly("imds.fetch=ok", "user.create=error", "hangs=unfinished");
    assertThat(provision.path("duration_ms").asDouble()).isGreaterThanOrEqualTo(0);

    run = CliRun.of("tree", "--dir", dir.toString());
    assertThat(run.exit()).isZero();
    assertThat(run.out())
        .contains("user.create  [kvprov] FAILED: useradd exited 9")
        .contains("hangs  [kvprov] STARTED, NEVER FINISHED");
  }

  @Test
  void tree_ofCloudInitEvents_pairsStartsAndFinishes() throws Exception {
    CliRun run = CliRun.of("tree", "--json", "--file", CLOUD_INIT_POOL.toString());
    assertThat(run.exit()).isZero();

    JsonNode tree = run.json();
    List<String> spans = new ArrayList<>();
    tree.forEach(n -> spans.add(n.path("name").asText() + "=" + n.path("status").asText()));
    assertThat(spans).containsExactly("azure-ds/crawl_metadata=ok", "azure-ds/failing_step=error");
  }

  @Test
  void decode_givesBackCloudInitsCompressedDmesg_allItsLines() {
    CliRun run = CliRun.of("decode", "--file", CLOUD_INIT_POOL.toString());
    assertThat(run.exit()).isZero();

    List<String> lines = run.out().lines().toList();
    assertThat(lines.get(0))
        .startsWith("== CLOUD_INIT|1795322355|compressed|dmesg|")
        .contains("gz+b64");
    assertThat(lines.subList(1, lines.size())).hasSize(400);
    assertThat(lines.get(1)).isEqualTo("[    0.000000] fake kernel line 0");
    assertThat(lines.get(400)).isEqualTo("[    399.000000] fake kernel line 399");
  }

  @Test
  void decode_aZlibBomb_isStopped() {
    byte[] zeros = new byte[80 << 20];
    java.util.zip.Deflater deflater = new java.util.zip.Deflater(9);
    deflater.setInput(zeros);
    deflater.finish();
    byte[] buffer = new byte[1 << 20];
    int n = deflater.deflate(buffer);
    String bomb = java.util.Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(buffer, n));

    org.assertj.core.api.Assertions.assertThatThrownBy(() -> CloudInitWriter.inflate(bomb))
        .hasMessageContaining("decoded; stopped");
  }

  @Test
  void getSetDelete_goThroughTheLockedStore_refusingWhatTheHostWouldCut() throws Exception {
    String d = dir.toString();
    CliRun run = CliRun.of("set", "--dir", d, "Support-Ticket", "123456");
    assertThat(run.exit()).isZero();
    assertThat(run.out()).contains("added Support-Ticket");
    run = CliRun.of("set", "--dir", d, "Support-Ticket", "654321");
    assertThat(run.exit()).isZero();
    assertThat(run.out()).contains("replaced Support-Ticket");

    run = CliRun.of("get", "--dir", d, "Support-Ticket");
    assertThat(run.exit()).isZero();
    assertThat(run.out()).isEqualTo("654321" + System.lineSeparator());

    run = CliRun.of("set", "--dir", d, "big", "x".repeat(1023));
    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err()).contains("the host-safe limit is 1022 bytes");

    run = CliRun.of("delete", "--dir", d, "Support-Ticket");
    assertThat(run.exit()).isZero();
    run = CliRun.of("get", "--dir", d, "Support-Ticket");
    assertThat(run.exit()).isEqualTo(1);
    run = CliRun.of("delete", "--dir", d, "Support-Ticket");
    assertThat(run.exit()).isEqualTo(1);
    assertThat(PoolFile.open(dir, 1).read().records()).isEmpty();
  }

  @Test
  void blame_ranksSpansByDuration_withSelfTime() throws Exception {
    PoolFile pool = PoolFile.open(dir, 1);
    try (KvpTelemetry telemetry = telemetry(pool)) {
      var tracer = telemetry.tracer();
      Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
      var root = tracer.spanBuilder("provision").setStartTimestamp(t0).startSpan();
      try (var scope = root.makeCurrent()) {
        tracer
            .spanBuilder("imds.fetch")
            .setStartTimestamp(t0.plusMillis(100))
            .startSpan()
            .end(t0.plusMillis(2100));
        tracer
            .spanBuilder("user.create")
            .setStartTimestamp(t0.plusMillis(2200))
            .startSpan()
            .end(t0.plusMillis(2700));
      }
      root.end(t0.plusMillis(3000));
    }

    CliRun run = CliRun.of("blame", "--json", "--dir", dir.toString());
    assertThat(run.exit()).isZero();

    JsonNode rows = run.json();
    List<String> ranked = new ArrayList<>();
    rows.forEach(
        r ->
            ranked.add(
                r.path("name").asText()
                    + " "
                    + r.path("duration_ms").asLong()
                    + " "
                    + r.path("self_ms").asLong()));
    assertThat(ranked)
        .containsExactly("provision 3000 500", "imds.fetch 2000 2000", "user.create 500 500");
  }
}
