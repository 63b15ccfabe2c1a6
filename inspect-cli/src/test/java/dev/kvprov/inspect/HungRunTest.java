package dev.kvprov.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvprov.kvp.KvpRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run that hung (or was killed) leaves starts without ends and no report: {@code report} says so
 * with the step still open and for how long; {@code blame} lists the open spans, marked.
 */
class HungRunTest {
  @TempDir Path dir;

  private Path hungPool() throws Exception {
    RawPool raw = new RawPool();
    List<KvpRecord> records = new ArrayList<>();
    records.addAll(
        KvprovSpanRecords.start("0000000000000001", null, "provision", "2026-11-22T04:47:40.000Z"));
    records.addAll(
        KvprovSpanRecords.end(
            "0000000000000002",
            "0000000000000001",
            "media.read_ovf",
            "2026-11-22T04:47:40.100Z",
            "2026-11-22T04:47:40.300Z"));
    records.addAll(
        KvprovSpanRecords.start(
            "0000000000000003", "0000000000000001", "imds.fetch", "2026-11-22T04:47:41.000Z"));
    records.addAll(
        KvprovSpanRecords.end(
            "0000000000000004",
            "0000000000000003",
            "imds.attempt",
            "2026-11-22T04:47:41.000Z",
            "2026-11-22T04:48:11.000Z"));
    records.forEach(r -> raw.add(r.key(), r.value()));
    Path pool = dir.resolve("hung.kvp");
    Files.write(pool, raw.bytes());
    return pool;
  }

  @Test
  void report_saysTheRunNeverFinished_whereAndForHowLong() throws Exception {
    Path pool = hungPool();

    CliRun run = CliRun.of("report", "--file", pool.toString());

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.out())
        .isEqualTo(
            "provisioning never finished: no PROVISIONING_REPORT in "
                + pool
                + "\n  started      2026-11-22T04:47:40Z  provision [kvprov]"
                + "\n  still open   imds.fetch, since 2026-11-22T04:47:41Z"
                + "\n  open for     at least 30.000s (until the pool's last record,"
                + " 2026-11-22T04:48:11Z)\n");
    JsonNode hung = CliRun.of("report", "--json", "--file", pool.toString()).json();
    assertThat(hung.path("unfinished").path("open_step").asText()).isEqualTo("imds.fetch");
    assertThat(hung.path("unfinished").path("open_for_s").asDouble()).isEqualTo(30.0);
  }

  @Test
  void blame_listsTheOpenSpans_marked_withTheirTimeSoFar() throws Exception {
    Path pool = hungPool();

    CliRun run = CliRun.of("blame", "--file", pool.toString());
    JsonNode json = CliRun.of("blame", "--json", "--file", pool.toString()).json();

    assertThat(run.out())
        .contains(
            "   31.000s     0.800s  provision  [kvprov]  NEVER FINISHED (so far)",
            "   30.000s     0.000s  imds.fetch  [kvprov]  NEVER FINISHED (so far)",
            "   30.000s    30.000s  imds.attempt  [kvprov]\n");
    assertThat(json.get(0).path("unfinished").asBoolean()).isTrue();
    assertThat(json.findValuesAsText("name")).contains("media.read_ovf");
  }
}
