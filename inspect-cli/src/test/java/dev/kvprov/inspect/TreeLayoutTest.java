package dev.kvprov.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.kvp.KvpRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kvp tree}'s columns hold for a pool that spans days; a pipe gets error text whole. */
class TreeLayoutTest {
  @TempDir Path dir;

  @Test
  void offsetsOfDays_keepTheColumns_andAPipeGetsAnErrorWhole() throws Exception {
    RawPool raw = new RawPool();
    String error =
        "no usable answer from IMDS after 8 attempt(s) in 8.0 s (budget 8 s); last: IMDS answered"
            + " HTTP 503 Service Unavailable";
    for (List<KvpRecord> records :
        List.of(
            KvprovSpanRecords.end(
                KvprovSpanRecords.spanId(0),
                null,
                "first",
                "2026-11-22T04:47:40.000Z",
                "2026-11-22T04:47:41.000Z"),
            KvprovSpanRecords.end(
                KvprovSpanRecords.spanId(1),
                null,
                "three days later",
                "2026-11-25T04:47:40.000Z",
                "2026-11-25T04:47:50.000Z"))) {
      records.forEach(r -> raw.add(r.key(), r.value()));
    }
    // a failed span: the same, with an error
    KvpRecord failed =
        KvprovSpanRecords.end(
                KvprovSpanRecords.spanId(2),
                null,
                "imds.fetch",
                "2026-11-25T04:47:41.000Z",
                "2026-11-25T04:47:49.000Z")
            .get(0);
    raw.add(failed.key(), failed.value().replace("Status: ok", "Status: error | Error: " + error));
    Path pool = dir.resolve("days.kvp");
    Files.write(pool, raw.bytes());

    List<String> lines = CliRun.of("tree", "--file", pool.toString()).out().lines().toList();

    assertThat(lines.get(0)).startsWith("     +0.000s    1.000s  first");
    assertThat(lines.get(1)).startsWith("+259200.000s   10.000s  three days later");
    assertThat(lines.get(2)).startsWith("+259201.000s    8.000s  imds.fetch  [kvprov] FAILED");
    // a pipe gets the failure whole on its line; a terminal wraps it (TerminalWidthTest)
    assertThat(lines.get(2)).endsWith("FAILED: " + error);
    assertThat(lines).hasSize(3);
  }
}
