package dev.kvprov.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.otel.KvpTelemetry;
import io.opentelemetry.api.trace.Span;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The boot's milestones the agent records on its run span (kernel, userspace, network-online,
 * kvprov's start, Ready) are a lane of their own: in the timeline, its page, its trace events and
 * the export.
 */
class MilestonesTest {
  @TempDir Path dir;

  private Path pool() {
    PoolFile pool = PoolFile.open(dir, 1);
    Instant kernel = Instant.now().minusSeconds(40);
    try (KvpTelemetry telemetry = QuietTelemetry.into(pool).build()) {
      Span run = telemetry.tracer().spanBuilder("provision").startSpan();
      for (Object[] m :
          List.of(
              new Object[] {"kernel", 0},
              new Object[] {"userspace", 4_000},
              new Object[] {"network-online", 31_000},
              new Object[] {"kvprov", 35_000})) {
        Instant at = kernel.plusMillis((Integer) m[1]);
        run.addEvent(
            "boot milestone: " + m[0],
            at.getEpochSecond() * 1_000_000_000L + at.getNano(),
            TimeUnit.NANOSECONDS);
      }
      run.addEvent("boot milestone: ready");
      run.end();
    }
    return dir.resolve(".kvp_pool_1");
  }

  @Test
  void theTimeline_listsThem_asMilestones() throws Exception {
    JsonNode rows =
        CliRun.of("timeline", "--json", "--file", pool().toString()).json().path("rows");

    List<String> milestones = new java.util.ArrayList<>();
    rows.forEach(
        r -> {
          if (r.path("kind").asText().equals("milestone")) {
            milestones.add(r.path("name").asText());
          }
        });
    assertThat(milestones)
        .containsExactly("kernel", "userspace", "network-online", "kvprov", "ready");
    assertThat(CliRun.of("list", "--file", pool().toString()).out())
        .as("a span event's words are in its line")
        .contains("provision: boot milestone: network-online");
  }

  @Test
  void thePage_drawsThemInALaneAboveTheSpans_theTraceOnAThreadOfTheirOwn_theExportAsEvents()
      throws Exception {
    Path pool = pool();
    Path page = dir.resolve("page.html");
    Path trace = dir.resolve("trace.json");
    Path otlp = dir.resolve("spans.jsonl");

    CliRun.of(
        "timeline",
        "--file",
        pool.toString(),
        "--html",
        page.toString(),
        "--trace-event",
        trace.toString());
    CliRun.of("export", "--otlp-json", otlp.toString(), "--file", pool.toString());

    String html = Files.readString(page);
    assertThat(html).contains(">boot milestones</text>");
    assertThat(html.indexOf(">boot milestones</text>"))
        .isLessThan(html.indexOf(">provision</text>"));
    JsonNode events =
        new com.fasterxml.jackson.databind.ObjectMapper()
            .readTree(Files.readString(trace))
            .path("traceEvents");
    List<String> onTheirThread = new java.util.ArrayList<>();
    events.forEach(
        e -> {
          if (e.path("cat").asText().equals("milestone")) {
            onTheirThread.add(e.path("name").asText());
          }
        });
    assertThat(onTheirThread)
        .containsExactly("kernel", "userspace", "network-online", "kvprov", "ready");
    assertThat(Files.readString(otlp))
        .contains("\"name\":\"boot milestone: kernel\"", "\"name\":\"boot milestone: ready\"");
  }
}
