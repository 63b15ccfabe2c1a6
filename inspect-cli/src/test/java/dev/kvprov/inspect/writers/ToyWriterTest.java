package dev.kvprov.inspect.writers;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvprov.inspect.CliRun;
import dev.kvprov.inspect.RawPool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A writer is one class: taught {@link ToyWriter}, every read command shows its items. */
class ToyWriterTest {
  @TempDir Path dir;
  private String pool;
  private AutoCloseable taught;

  @BeforeEach
  void writeAPoolOfToyRecords() throws Exception {
    taught = Writers.teach(ToyWriter.WRITER);
    Path file = dir.resolve("toy.kvp");
    Files.write(
        file,
        new RawPool()
            // one operation in two pieces, cut in the middle of a field
            .add("TOY|unpack|0/2", "start=2026-11-24T10:00:00Z;end=2026-11-24T10:00:0")
            .add("TOY|unpack|1/2", "4Z;status=ok;msg=unpacked 3 files")
            .add("TOY|configure|0/1", "start=2026-11-24T10:00:04Z;end=2026-11-24T10:00:09Z")
            .add("TOY|noticed|0/1", "at=2026-11-24T10:00:05Z;msg=the disk is small")
            .add(
                "TOY|install|0/1",
                "start=2026-11-24T10:00:09Z;end=2026-11-24T10:00:10Z;status=error;msg=no space")
            .bytes());
    pool = file.toString();
  }

  @AfterEach
  void forget() throws Exception {
    taught.close();
  }

  @Test
  void list_joinsItsPieces_andReadsItsEvents() {
    CliRun run = CliRun.of("list", "--json", "--writer", "toy", "--file", pool);

    assertThat(run.exit()).as(run.err()).isZero();
    List<JsonNode> items = run.jsonLines();
    assertThat(items).extracting(i -> i.path("writer").asText()).containsOnly("toy");
    assertThat(items.get(0).path("records").toString()).isEqualTo("[0,1]");
    assertThat(items.get(0).path("event").path("message").asText()).isEqualTo("unpacked 3 files");
    assertThat(items).hasSize(4);
  }

  @Test
  void tree_blame_andReport_showItsOperations() {
    CliRun tree = CliRun.of("tree", "--file", pool);
    assertThat(tree.out())
        .contains("unpack", "configure", "install")
        .contains("no space")
        .doesNotContain("noticed");

    CliRun blame = CliRun.of("blame", "--json", "--file", pool);
    assertThat(blame.json().findValuesAsText("name")).startsWith("configure", "unpack", "install");
    assertThat(blame.json().findValuesAsText("writer")).containsOnly("toy");
  }

  @Test
  void timeline_placesItsOperationsAndMoments_andThePageColoursThem() throws Exception {
    CliRun run = CliRun.of("timeline", "--json", "--file", pool);
    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out()).contains("\"noticed\"", "the disk is small", "\"install\"");

    Path page = dir.resolve("toy.html");
    CliRun html = CliRun.of("timeline", "--file", pool, "--html", page.toString());
    assertThat(html.exit()).as(html.err()).isZero();
    assertThat(Files.readString(page)).contains("#123456", "unpack", "the disk is small");
  }

  @Test
  void export_andDoctor_takeItLikeAnyWriter() {
    CliRun export = CliRun.of("export", "--otlp-json", "-", "--file", pool);
    assertThat(export.exit()).as(export.err()).isZero();
    assertThat(export.out()).contains("\"toy\"", "\"unpack\"", "\"install\"");

    CliRun doctor = CliRun.of("doctor", "--file", pool);
    assertThat(doctor.exit()).as(doctor.out()).isZero();
  }

  @Test
  void watch_showsItsItemsAsTheyCome() {
    CliRun run = CliRun.of("watch", "--file", pool, "--exit-after", "4", "--timeout", "5");

    assertThat(run.out()).contains("toy", "unpack", "noticed", "the disk is small");
  }
}
