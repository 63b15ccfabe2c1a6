package dev.kvprov.inspect;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvprov.inspect.cli.KvpCommandTest;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Pools that are damaged or hostile: every span and item still shown, never an exception. */
class DamagedPoolsTest {
  @TempDir Path dir;

  private Path pool(List<KvpRecord> records) throws Exception {
    Path file = dir.resolve("pool-" + System.nanoTime() + ".kvp");
    PoolFile.builder().file(file).limits(dev.kvprov.kvp.KvpLimits.WIRE).build().append(records);
    return file;
  }

  private static int spans(JsonNode nodes) {
    int count = 0;
    List<JsonNode> stack = new ArrayList<>();
    nodes.forEach(stack::add);
    while (!stack.isEmpty()) {
      JsonNode n = stack.remove(stack.size() - 1);
      count++;
      n.path("children").forEach(stack::add);
    }
    return count;
  }

  @Test
  void aFiveThousandDeepChain_isShownWhole_flatBelowTheCap() throws Exception {
    Path file = pool(KvprovSpanRecords.chain(5000, Instant.parse("2026-11-22T04:47:46Z")));

    CliRun json = CliRun.of("tree", "--json", "--file", file.toString());
    CliRun human = CliRun.of("tree", "--file", file.toString());
    CliRun blame = CliRun.of("blame", "--json", "--top", "10000", "--file", file.toString());

    assertThat(json.exit()).as(json.err()).isZero();
    assertThat(spans(json.json())).isEqualTo(5000);
    assertThat(json.err()).contains("nest deeper than 64; shown flat");
    assertThat(human.out().lines()).hasSize(5000);
    assertThat(blame.exit()).isZero();
    assertThat(blame.json()).hasSize(5000);
  }

  @Test
  void spansWhoseParentsFormACycle_areShownAsRoots() throws Exception {
    String a = KvprovSpanRecords.spanId(1);
    String b = KvprovSpanRecords.spanId(2);
    String c = KvprovSpanRecords.spanId(3);
    List<KvpRecord> records = new ArrayList<>();
    records.addAll(
        KvprovSpanRecords.end(a, b, "a", "2026-11-22T04:47:46Z", "2026-11-22T04:47:47Z"));
    records.addAll(
        KvprovSpanRecords.end(b, a, "b", "2026-11-22T04:47:46Z", "2026-11-22T04:47:47Z"));
    records.addAll(
        KvprovSpanRecords.end(c, a, "c", "2026-11-22T04:47:46Z", "2026-11-22T04:47:47Z"));
    Path file = pool(records);

    CliRun run = CliRun.of("tree", "--json", "--file", file.toString());

    assertThat(run.exit()).isZero();
    assertThat(spans(run.json())).isEqualTo(3);
    assertThat(run.err()).contains("parents lead back to it; shown as a root");
  }

  @Test
  void aSpanOverCenturies_hasItsDuration() throws Exception {
    Path file =
        pool(
            KvprovSpanRecords.end(
                KvprovSpanRecords.spanId(1),
                null,
                "long",
                "2026-11-22T04:47:46Z",
                "2500-01-01T00:00:00Z"));

    CliRun tree = CliRun.of("tree", "--json", "--file", file.toString());
    CliRun human = CliRun.of("tree", "--file", file.toString());
    CliRun blame = CliRun.of("blame", "--file", file.toString());

    assertThat(tree.exit()).as(tree.err()).isZero();
    assertThat(tree.json().get(0).path("duration_ms").asDouble()).isGreaterThan(1.4e13);
    assertThat(human.out()).contains("14929902734.000s");
    assertThat(blame.exit()).isZero();
  }

  @Test
  void cloudInit_aFailedFinishWithoutItsStart_isShown_andWarnIsNoFailure() throws Exception {
    String event =
        "{\"name\":\"%s\",\"type\":\"finish\",\"ts\":\"2026-11-22T04:47:46.5Z\",\"result\":\"%s\",\"msg\":\"%s\"}";
    Path file =
        pool(
            List.of(
                new KvpRecord(
                    "CLOUD_INIT|1795322355|finish|init-local/azure-ds|u1",
                    String.format(event, "init-local/azure-ds", "FAIL", "no IMDS")),
                new KvpRecord(
                    "CLOUD_INIT|1795322355|finish|init-network/config|u2",
                    String.format(event, "init-network/config", "WARN", "slow"))));

    CliRun run = CliRun.of("tree", "--json", "--file", file.toString());

    assertThat(run.json().findValuesAsText("status")).containsExactly("error", "ok");
    assertThat(CliRun.of("tree", "--file", file.toString()).out()).contains("FAILED: no IMDS");
  }

  @Test
  void kvprovPieces_thatDoNotFit_orAGrammarWeDoNotKnow_areProblems() throws Exception {
    String base = "kvprov-1|unknown|INFO|log|x|l0000000000000001";
    Path file =
        pool(
            List.of(
                new KvpRecord(base + "|0/3", "Time: 2026-11-22T04:47:46.000Z | Na"),
                new KvpRecord(base + "|1/3", "me: n | Body: "),
                new KvpRecord(base + "|5/3", "hi"),
                new KvpRecord("kvprov-2|unknown|INFO|log|y|l02", "Body: from the future"),
                new KvpRecord("kvprov-1|unknown|INFO|log|z|l03", "no labels here")));

    CliRun list = CliRun.of("list", "--json", "--file", file.toString());
    CliRun get = CliRun.of("get", base, "--file", file.toString());

    assertThat(list.exit()).isEqualTo(1);
    List<JsonNode> items = list.jsonLines();
    assertThat(items.get(0).path("problems").toString())
        .contains("piece 5/3, which does not fit 3 pieces")
        .contains("1 of 3 pieces missing");
    assertThat(items.get(1).path("problems").toString()).contains("grammar this kvp does not know");
    assertThat(items.get(2).path("problems").toString()).contains("not a readable kvprov record");
    assertThat(get.exit()).isEqualTo(1);
    assertThat(get.err()).contains("kvp get: ", "1 of 3 pieces missing");
  }

  @Test
  void report_neverSendsTerminalControls_andItsJsonStaysJson() throws Exception {
    Path escapes =
        pool(
            List.of(
                new KvpRecord(
                    "PROVISIONING_REPORT", "result=error|reason=\u001b]0;pwned\u0007\u001b[2J")));
    Path unreadable = pool(List.of(new KvpRecord("PROVISIONING_REPORT", "\"unclosed")));

    CliRun human = CliRun.of("report", "--file", escapes.toString());
    CliRun json = CliRun.of("report", "--json", "--file", unreadable.toString());

    assertThat(human.out()).doesNotContain("\u001b").contains("\\x1b]0;pwned\\x07\\x1b[2J");
    assertThat(json.exit()).isEqualTo(1);
    assertThat(json.json().path("fields").isNull()).isTrue();
    assertThat(json.json().path("error").asText()).isNotEmpty();
  }

  @Test
  void decodeJson_givesTheDmesgText() {
    CliRun run = CliRun.of("decode", "--json", "--file", KvpCommandTest.CLOUD_INIT_POOL.toString());

    assertThat(run.exit()).isZero();
    JsonNode dmesg = run.jsonLines().get(0);
    assertThat(dmesg.path("encoding").asText()).isEqualTo("gz+b64");
    assertThat(dmesg.path("text").asText().lines()).hasSize(400);
  }

  @Test
  void list_writerIsChecked_andOnlyShownItemsCountAsProblems() throws Exception {
    byte[] pool = Files.readAllBytes(KvpCommandTest.CLOUD_INIT_POOL);
    Path damaged = dir.resolve("damaged.kvp");
    Files.write(
        damaged,
        new RawPool()
            .addBytes(pool)
            .add("other-key".getBytes(UTF_8), new byte[] {(byte) 0xFF})
            .bytes());

    assertThat(CliRun.of("list", "--writer", "bogus").exit()).isEqualTo(2);
    assertThat(CliRun.of("list", "--writer", "cloud-init", "--file", damaged.toString()).exit())
        .isZero();
    assertThat(CliRun.of("list", "--writer", "other", "--file", damaged.toString()).exit())
        .isEqualTo(1);
  }

  @Test
  void cloudInitChunks_aMissingFirstChunk_isNamed_andEventsStayInPoolOrder() throws Exception {
    List<KvpRecord> records = RecordsOf.cloudInitFixture();
    // records 5..8 are the chunks of one event; drop chunk 0
    List<KvpRecord> withoutFirst = new ArrayList<>(records);
    withoutFirst.remove(5);
    Path file = pool(withoutFirst);

    List<JsonNode> items = CliRun.of("list", "--json", "--file", file.toString()).jsonLines();

    JsonNode chunked = items.get(5);
    assertThat(chunked.path("problems").toString()).contains("cloud-init chunk 0 missing");
    assertThat(chunked.path("problems").toString()).doesNotContain("chunks 0 to");
    assertThat(items.stream().map(i -> i.path("index").asInt()).toList()).isSorted();
  }

  @Test
  void aDirectoryGivenAsAPool_isAnIoError_thatSaysWhy() throws Exception {
    CliRun run = CliRun.of("list", "--file", dir.toString());

    assertThat(run.exit()).isEqualTo(3);
    assertThat(run.err()).startsWith("kvp list: " + dir + ": ").doesNotEndWith(dir + "\n");
  }

  @Test
  void rootWithAnArchiveNameNoBootFits_stillReadsEveryArchive() throws Exception {
    Path archive = Files.createDirectories(dir.resolve("var/lib/kvprov/kvp-archive"));
    Files.write(
        archive.resolve("pool1-1795322355.kvp"), new RawPool().add("boot", "first").bytes());
    Files.write(
        archive.resolve("pool1-99999999999999999999.kvp"),
        new RawPool().add("boot", "odd").bytes());

    CliRun run = CliRun.of("list", "--json", "--root", dir.toString());
    CliRun raw = CliRun.of("list", "--raw", "--json", "--root", dir.toString());

    assertThat(run.jsonLines().stream().map(i -> i.path("value").asText()))
        .containsExactly("first", "odd");
    assertThat(raw.jsonLines().get(1).path("source").asText()).endsWith("99999999999999999999.kvp");
  }
}
