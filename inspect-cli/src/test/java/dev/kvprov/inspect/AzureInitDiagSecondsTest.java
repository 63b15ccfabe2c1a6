package dev.kvprov.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * azure-init's diagnostic records written with whole-second timestamps (its writer's {@code
 * Seconds} precision): one operation after another within one second, so only the order of the
 * records tells which came first; and durations in the forms azure-init's own reader accepts.
 *
 * <p>The pool {@code azure-init-diag-seconds.kvp_pool_1} beside this test was written by
 * azure-init's own pool store (its {@code libazureinit-kvp} command, {@code append-multiple}, built
 * from source outside this repository) from the records in {@code azure-init-diag-seconds.records},
 * whose keys follow docs/kvp-format.md; {@link #thePoolIsTheseRecords_laidOutAsAzureInitLaysThem}
 * pins them.
 */
class AzureInitDiagSecondsTest {
  private static final String VM = "5c0ffee0-4d2b-4c3a-9e1f-0a1b2c3d4e5f";
  private static final String RUN = "0f0e0d0c-0b0a-4909-8807-060504030201";
  private static final String IMDS = "1a1b1c1d-1e1f-4a2b-8c2d-2e2f30313233";
  private static final String USER = "2b2c2d2e-2f30-4132-9334-353637383940";
  private static final String HOST = "3c3d3e3f-4041-4243-8445-464748494a4b";
  private static final String EVENT = "4d4e4f50-5152-4354-9556-575859505152";
  private static final String SECOND = "2026-11-22T04:47:47Z";
  private static final Path POOL =
      Path.of("src/test/resources/dev/kvprov/inspect/azure-init-diag-seconds.kvp_pool_1");

  @TempDir Path dir;
  private final String pool = POOL.toString();

  /** One record of a single-piece payload: {@code DIAG|agent|vm|kind|name|id|ts|enc|res|dur|0}. */
  static String key(String kind, String name, String id, String ts, String result, String dur) {
    return String.join(
        "|", "DIAG", "azure-init/0.1.1", VM, kind, name, id, ts, "none", result, dur, "0");
  }

  @Test
  void thePoolIsTheseRecords_laidOutAsAzureInitLaysThem() throws Exception {
    RawPool raw =
        new RawPool()
            .add(key("start", "provision:run", RUN, SECOND, "", ""), "starting")
            .add(key("start", "imds", IMDS, SECOND, "", ""), "GET /metadata/instance")
            .add(key("event", "imds", EVENT, SECOND, "", ""), "Retrieved 2 keys from IMDS")
            .add(key("finish", "imds", IMDS, SECOND, "success", "0.312000"), "200 OK")
            .add(key("start", "user:create", USER, SECOND, "", ""), "")
            // azure-init's reader takes a duration in exponent notation too
            .add(key("finish", "user:create", USER, SECOND, "success", "2.1e-2"), "")
            .add(key("start", "hostname:set", HOST, SECOND, "", ""), "")
            .add(key("finish", "hostname:set", HOST, SECOND, "success", "4E-3"), "")
            .add(
                key("finish", "provision:run", RUN, "2026-11-22T04:47:48Z", "success", "0.9"),
                "provisioned");

    assertThat(Files.readAllBytes(POOL)).isEqualTo(raw.bytes());
  }

  private static List<String> names(JsonNode spans) {
    List<String> names = new ArrayList<>();
    spans.forEach(s -> names.add(s.path("name").asText()));
    return names;
  }

  @Test
  void tree_operationsOfOneSecond_nestByRecordOrder_notAsAChain() {
    CliRun run = CliRun.of("tree", "--json", "--file", pool);

    assertThat(run.exit()).as(run.err()).isZero();
    JsonNode roots = run.json();
    assertThat(names(roots)).containsExactly("provision:run");
    JsonNode steps = roots.get(0).path("children");
    assertThat(names(steps))
        .as("each finished before the next started")
        .containsExactly("imds", "user:create", "hostname:set");
    steps.forEach(s -> assertThat(s.path("children")).as(s.toString()).isEmpty());
  }

  @Test
  void timeline_rowsOfOneSecond_comeInRecordOrder() {
    CliRun run = CliRun.of("timeline", "--json", "--file", pool);

    assertThat(run.exit()).as(run.err()).isZero();
    List<String> rows = new ArrayList<>();
    for (JsonNode row : run.json().path("rows")) {
      rows.add(row.path("kind").asText() + " " + row.path("name").asText());
    }
    assertThat(rows)
        .containsExactly(
            "start provision:run",
            "start imds",
            "event imds",
            "end imds",
            "start user:create",
            "end user:create",
            "start hostname:set",
            "end hostname:set",
            "end provision:run");
  }

  @Test
  void blame_listsEqualTotalsInRecordOrder() {
    CliRun run = CliRun.of("blame", "--json", "--file", pool);

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.json().findValuesAsText("name"))
        .containsExactly("provision:run", "imds", "user:create", "hostname:set");
  }

  @Test
  void report_theStepStillOpen_isTheLastOneStartedInThatSecond() throws Exception {
    Path hung = dir.resolve("hung.kvp");
    Files.write(
        hung,
        new RawPool()
            .add(key("start", "provision:run", RUN, SECOND, "", ""), "")
            .add(key("start", "imds", IMDS, SECOND, "", ""), "") // never finished
            .add(key("finish", "provision:run", RUN, SECOND, "fail", "0.5"), "")
            .add(key("start", "ssh:keys", HOST, SECOND, "", ""), "") // never finished
            .bytes());

    CliRun run = CliRun.of("report", "--json", "--file", hung.toString());

    assertThat(run.exit()).as(run.err()).isEqualTo(1);
    assertThat(run.json().path("unfinished").path("open_step").asText()).isEqualTo("ssh:keys");
  }

  @Test
  void list_readsADurationInExponentNotation() {
    CliRun run = CliRun.of("list", "--json", "--file", pool);

    assertThat(run.exit()).as(run.err()).isZero();
    List<JsonNode> items = run.jsonLines();
    assertThat(items.get(5).path("event").path("duration_s").asDouble()).isEqualTo(0.021);
    assertThat(items.get(7).path("event").path("duration_s").asDouble()).isEqualTo(0.004);
    items.forEach(i -> assertThat(i.path("problems")).as(i.toString()).isEmpty());
  }

  @Test
  void aDurationThatDoesNotRead_isSaid_notDroppedWithoutAWord() throws Exception {
    Path odd = dir.resolve("odd.kvp");
    Files.write(
        odd,
        new RawPool()
            .add(key("start", "imds", IMDS, SECOND, "", ""), "")
            .add(key("finish", "imds", IMDS, SECOND, "success", "0,312"), "")
            // a payload of three pieces, the middle one lost
            .add(key("event", "ovf", USER, SECOND, "", ""), "a".repeat(1022))
            .add(key("event", "ovf", USER, SECOND, "", "").replaceAll("0$", "2"), "end")
            .bytes());

    CliRun list = CliRun.of("list", "--json", "--file", odd.toString());
    assertThat(list.jsonLines().get(1).path("problems").toString())
        .contains("the duration is not a number of seconds: 0,312");

    CliRun doctor = CliRun.of("doctor", "--json", "--file", odd.toString());
    assertThat(doctor.exit()).isEqualTo(1);
    assertThat(doctor.json().path("problems"))
        .as("each at its record's offset")
        .extracting(
            p ->
                p.path("kind").asText()
                    + " "
                    + p.path("record").asInt()
                    + " "
                    + p.path("offset").asLong())
        .containsExactly("item_damaged 1 2560", "item_damaged 2 5120");

    CliRun human = CliRun.of("doctor", "--file", odd.toString());
    assertThat(human.out())
        .contains(
            "  item_damaged: record 1 at offset 2560: azure-init-diag: the duration is not a"
                + " number of seconds: 0,312\n",
            "  item_damaged: record 2 at offset 5120: azure-init-diag: piece 1 of the payload"
                + " missing\n");
  }
}
