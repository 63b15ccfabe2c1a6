package dev.kvprov.inspect.render;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvprov.fixtures.Fixtures;
import dev.kvprov.inspect.CliRun;
import dev.kvprov.inspect.RescuedDisk;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code timeline --trace-event}: the JSON object format of Chrome's trace events, as Perfetto
 * reads it — every event with the fields its phase needs, complete events nesting properly on their
 * thread, a process per boot named with its verdict.
 */
class TraceEventsTest {
  @TempDir Path dir;

  @Test
  void twoBootsOfThreeWriters_giveAWellFormedTrace() throws Exception {
    Path root =
        RescuedDisk.of(
            dir,
            Fixtures.bytes(Fixtures.AZURE_INIT_DIAG_POOL),
            Fixtures.bytes(Fixtures.CLOUD_INIT_POOL));
    Path trace = dir.resolve("trace.json");

    CliRun run =
        CliRun.of("timeline", "--root", root.toString(), "--trace-event", trace.toString());

    assertThat(run.exit()).as(run.err()).isZero();
    JsonNode json = new ObjectMapper().readTree(Files.readString(trace));
    JsonNode events = json.path("traceEvents");
    assertThat(events.isArray()).isTrue();
    assertThat(json.path("displayTimeUnit").asText()).isIn("ms", "ns");
    Map<String, List<long[]>> complete = new HashMap<>();
    List<String> processes = new ArrayList<>();
    for (JsonNode e : events) {
      assertThat(e.path("name").isTextual()).as(e.toString()).isTrue();
      assertThat(e.path("pid").isIntegralNumber()).as(e.toString()).isTrue();
      assertThat(e.path("tid").isIntegralNumber()).as(e.toString()).isTrue();
      switch (e.path("ph").asText()) {
        case "X" -> {
          assertThat(e.path("ts").isIntegralNumber()).as(e.toString()).isTrue();
          assertThat(e.path("dur").asLong()).as(e.toString()).isNotNegative();
          long ts = e.path("ts").asLong();
          complete
              .computeIfAbsent(e.path("pid") + "/" + e.path("tid"), k -> new ArrayList<>())
              .add(new long[] {ts, ts + e.path("dur").asLong()});
        }
        case "i" -> {
          assertThat(e.path("ts").isIntegralNumber()).as(e.toString()).isTrue();
          assertThat(e.path("s").asText()).isIn("g", "p", "t");
        }
        case "M" -> {
          assertThat(e.path("name").asText())
              .isIn("process_name", "thread_name", "process_sort_index");
          if (e.path("name").asText().equals("process_name")) {
            processes.add(e.path("args").path("name").asText());
          }
        }
        default -> throw new AssertionError("a phase Perfetto does not read: " + e);
      }
    }
    assertThat(processes)
        .containsExactly(
            "boot 1: FAILED: useradd failed (step user:create, provisioning failed)",
            "boot 2: no PROVISIONING_REPORT");
    // on one thread, complete events nest or follow one another: Perfetto draws them as a stack
    for (List<long[]> spans : complete.values()) {
      spans.sort(Comparator.comparingLong((long[] s) -> s[0]).thenComparing(s -> -s[1]));
      List<long[]> open = new ArrayList<>();
      for (long[] s : spans) {
        open.removeIf(o -> o[1] <= s[0]);
        assertThat(open).allSatisfy(o -> assertThat(s[1]).isLessThanOrEqualTo(o[1]));
        open.add(s);
      }
    }
    assertThat(Set.copyOf(events.findValuesAsText("cat")))
        .contains("azure-init-diag", "cloud-init", "report");
  }
}
