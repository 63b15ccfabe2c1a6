package dev.kvprov.inspect;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Pools as azure-init writes them: a new uuid per value, spans at close, long values byte-cut. */
class AzureInitPoolTest {
  private static final String VM = "00840e55-9be2-d441-a716-446655440000";
  private static final String PREFIX = "azure-init-0.1.1|" + VM + "|";

  /** Long enough for four pieces, with 'é' (2 bytes) placed so the first cut splits one. */
  private static final String LONG_MESSAGE =
      "message="
          + "x".repeat(1022 - "Time: 2024-06-01T10:00:02.000Z | Event: message=".length() - 1)
          + "é and a café with crème brûlée ".repeat(60);

  @TempDir Path dir;
  private Path pool;
  private int pieces;

  private static String key(String level, String span, int n) {
    return PREFIX + level + "|" + span + "|0c1f9b1e-8a4d-4c1e-9d5f-00000000000" + n;
  }

  @BeforeEach
  void writePool() throws Exception {
    byte[] longValue = ("Time: 2024-06-01T10:00:02.000Z | Event: " + LONG_MESSAGE).getBytes(UTF_8);
    assertThat(longValue[1021] & 0xC0).as("the first cut falls inside 'é'").isEqualTo(0xC0);
    RawPool raw = new RawPool();
    String longKey = key("INFO", "libazureinit::imds:query", 1);
    for (int at = 0; at < longValue.length; at += 1022) {
      pieces++;
      raw.add(
          longKey.getBytes(UTF_8),
          Arrays.copyOfRange(longValue, at, Math.min(at + 1022, longValue.length)));
    }
    raw.add(
            key("INFO", "libazureinit::imds:query", 2),
            "Start: 2024-06-01T10:00:01.000Z | End: 2024-06-01T10:00:03.000Z")
        .add(
            key("ERROR", "libazureinit::user:create_user", 3),
            "Time: 2024-06-01T10:00:04.500Z | Event: message=useradd failed, status=9")
        .add(
            key("INFO", "libazureinit::user:create_user", 4),
            "Start: 2024-06-01T10:00:04.000Z | End: 2024-06-01T10:00:05.000Z")
        .add(
            key("INFO", "azure_init:provision", 5),
            "Start: 2024-06-01T10:00:00.000Z | End: 2024-06-01T10:00:10.000Z")
        // same key as the next, but the first is short: two values, not two pieces
        .add(key("INFO", "azure_init:report", 6), "Time: 2024-06-01T10:00:10.000Z | Event: a")
        .add(key("INFO", "azure_init:report", 6), "Time: 2024-06-01T10:00:10.100Z | Event: b");
    pool = dir.resolve("azure-init.kvp");
    Files.write(pool, raw.bytes());
  }

  @Test
  void list_joinsBytePiecesExactly_evenWhenACharacterIsCut() {
    CliRun run = CliRun.of("list", "--json", "--file", pool.toString());

    assertThat(run.exit()).as(run.err()).isZero();
    List<JsonNode> items = run.jsonLines();
    JsonNode joined = items.get(0);
    assertThat(pieces).as("pieces of the long value").isEqualTo(4);
    assertThat(joined.path("records").toString()).isEqualTo("[0,1,2,3]");
    assertThat(joined.path("writer").asText()).isEqualTo("azure-init");
    assertThat(joined.path("value").asText())
        .isEqualTo("Time: 2024-06-01T10:00:02.000Z | Event: " + LONG_MESSAGE);
    assertThat(joined.path("problems")).isEmpty();
    assertThat(joined.path("event").path("type").asText()).isEqualTo("event");
    assertThat(joined.path("event").path("message").asText()).isEqualTo(LONG_MESSAGE);
    assertThat(joined.path("event").path("time").asText()).isEqualTo("2024-06-01T10:00:02Z");
    assertThat(joined.path("event").path("vm_id").asText()).isEqualTo(VM);
    assertThat(items).hasSize(7);
    assertThat(items.get(5).path("value").asText()).endsWith("Event: a");
    assertThat(items.get(6).path("value").asText()).endsWith("Event: b");
  }

  @Test
  void doctor_takesPiecesCutInsideACharacterForWhatTheyAre_butSaysTheHostLosesTheCharacter() {
    CliRun run = CliRun.of("doctor", "--json", "--file", pool.toString());

    assertThat(run.exit()).as(run.out()).isEqualTo(1);
    // The four pieces of one value share a key and cut characters in two: azure-init's format,
    // measured as stored (1022 bytes each), and whole once joined. But the host converts each
    // record on its own, and loses each character cut. Two values under one key are a finding too.
    List<String> expected = new java.util.ArrayList<>();
    byte[] longValue = ("Time: 2024-06-01T10:00:02.000Z | Event: " + LONG_MESSAGE).getBytes(UTF_8);
    for (int cut = 1022, record = 0; cut < longValue.length; cut += 1022, record++) {
      if ((longValue[cut] & 0xC0) == 0x80) {
        expected.add("character_lost_by_host " + record);
      }
    }
    expected.add("duplicate_key 9");
    assertThat(expected)
        .as("the first cut, at least, falls inside a character")
        .hasSizeGreaterThan(1);
    assertThat(run.json().path("problems"))
        .extracting(p -> p.path("kind").asText() + " " + p.path("record").asInt())
        .containsExactlyElementsOf(expected);
    JsonNode first = run.json().path("problems").get(0);
    assertThat(first.path("offset").asLong()).as("where 'é' begins").isEqualTo(512 + 1021);
    assertThat(first.path("message").asText())
        .isEqualTo(
            "azure-init: \"é\" is cut between records 0 and 1; the host converts each record to"
                + " UTF-16 on its own and loses it: record 0 ends \"…"
                + "x".repeat(23)
                + "\", record 1 begins \" and a café with crèm…\"");

    CliRun human = CliRun.of("doctor", "--file", pool.toString());
    assertThat(human.out()).contains("  character_lost_by_host: record 0 at offset 1533: ");
  }

  @Test
  void doctor_showsAShortPieceWhole() throws Exception {
    byte[] value =
        ("Time: 2024-06-01T10:00:02.000Z | Event: message=" + "x".repeat(973) + "é and hôte")
            .getBytes(UTF_8);
    RawPool raw = new RawPool();
    for (int at = 0; at < value.length; at += 1022) {
      raw.add(
          key("INFO", "provision:user", 7).getBytes(UTF_8),
          Arrays.copyOfRange(value, at, Math.min(at + 1022, value.length)));
    }
    Path shortTail = dir.resolve("short.kvp");
    Files.write(shortTail, raw.bytes());

    CliRun run = CliRun.of("doctor", "--json", "--file", shortTail.toString());

    assertThat(run.json().path("problems").get(0).path("message").asText())
        .endsWith("record 1 begins \" and hôte\"");
  }

  @Test
  void tree_nestsByTimeContainment_andFailsTheSpanAnErrorHappenedIn() {
    CliRun run = CliRun.of("tree", "--json", "--file", pool.toString());

    assertThat(run.exit()).as(run.err()).isZero();
    JsonNode roots = run.json();
    assertThat(roots).hasSize(1);
    JsonNode provision = roots.get(0);
    assertThat(provision.path("name").asText()).isEqualTo("azure_init:provision");
    assertThat(provision.path("writer").asText()).isEqualTo("azure-init");
    assertThat(provision.path("duration_ms").asDouble()).isEqualTo(10_000.0);
    assertThat(provision.path("status").asText()).isEqualTo("ok");
    assertThat(provision.path("children").findValuesAsText("name"))
        .containsExactly("libazureinit::imds:query", "libazureinit::user:create_user");
    JsonNode createUser = provision.path("children").get(1);
    assertThat(createUser.path("status").asText()).isEqualTo("error");
  }

  @Test
  void treeHuman_showsTheFailureMessage() {
    CliRun run = CliRun.of("tree", "--file", pool.toString());

    assertThat(run.out())
        .contains("[azure-init] FAILED: message=useradd failed, status=9\n")
        .contains("    libazureinit::imds:query  [azure-init] ok");
  }
}
