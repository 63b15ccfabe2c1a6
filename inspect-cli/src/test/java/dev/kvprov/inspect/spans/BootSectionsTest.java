package dev.kvprov.inspect.spans;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvprov.fixtures.Fixtures;
import dev.kvprov.inspect.CliRun;
import dev.kvprov.inspect.RescuedDisk;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rescued disk with an earlier boot archived and the last boot in the pool: every command shows
 * each boot as its own section, with its time, file and verdict, and {@code --boot} picks one.
 */
class BootSectionsTest {
  @TempDir Path dir;
  private Path root;

  @BeforeEach
  void aDiskWithTwoBoots() throws Exception {
    root =
        RescuedDisk.of(
            dir,
            Fixtures.bytes(Fixtures.AZURE_INIT_DIAG_POOL),
            Fixtures.bytes(Fixtures.CLOUD_INIT_POOL));
  }

  @Test
  void tree_drawsEachBootUnderItsOwnHeading() {
    CliRun run = CliRun.of("tree", "--root", root.toString());

    assertThat(run.exit()).as(run.err()).isZero();
    List<String> lines = run.out().lines().toList();
    assertThat(lines.get(0))
        .isEqualTo(
            "== boot 1 of 2, 2026-11-22T04:47:47Z: FAILED: useradd failed"
                + " (step user:create, provisioning failed)");
    assertThat(lines.get(1)).endsWith("var/lib/kvprov/kvp-archive/pool1-1795322355.kvp");
    assertThat(lines)
        .contains("== boot 2 of 2, 2026-11-22T04:39:15Z: no PROVISIONING_REPORT")
        .anyMatch(l -> l.contains("provision:run"))
        .anyMatch(l -> l.contains("azure-ds/failing_step"));
    assertThat(lines.indexOf("== boot 2 of 2, 2026-11-22T04:39:15Z: no PROVISIONING_REPORT"))
        .isGreaterThan(
            lines.indexOf(
                lines.stream().filter(l -> l.contains("ssh:keys")).findFirst().orElseThrow()));
  }

  @Test
  void boot_picksOne_latestOrByNumber_andSaysWhenThereIsNoSuchBoot() {
    CliRun latest = CliRun.of("tree", "--root", root.toString(), "--boot", "latest");
    CliRun first = CliRun.of("blame", "--root", root.toString(), "--boot", "1");
    CliRun none = CliRun.of("timeline", "--root", root.toString(), "--boot", "3");

    assertThat(latest.out())
        .doesNotContain("==", "provision:run")
        .contains("azure-ds/failing_step");
    assertThat(first.out()).contains("provision:run").doesNotContain("azure-ds");
    assertThat(none.exit()).isEqualTo(2);
    assertThat(none.err()).startsWith("kvp timeline: --boot 3: there are 2 boots");
  }

  @Test
  void json_saysWhichBootEachPartIs() {
    JsonNode tree = CliRun.of("tree", "--json", "--root", root.toString()).json();
    JsonNode timeline = CliRun.of("timeline", "--json", "--root", root.toString()).json();

    List<Integer> boots = new ArrayList<>();
    tree.forEach(span -> boots.add(span.path("boot").asInt()));
    assertThat(boots).containsExactly(1, 2, 2);
    assertThat(timeline.path("boots")).hasSize(2);
    assertThat(timeline.path("boots").get(0).path("verdict").asText())
        .startsWith("FAILED: useradd failed");
    assertThat(timeline.path("boots").get(1).path("boot").path("source").asText())
        .isEqualTo("cloud-init");
  }

  @Test
  void thePage_opensWithTheVerdict_andHasASectionPerBoot() throws Exception {
    Path page = dir.resolve("boots.html");

    CliRun run = CliRun.of("timeline", "--root", root.toString(), "--html", page.toString());

    assertThat(run.out()).contains("2 boots");
    String html = Files.readString(page);
    assertThat(html)
        .contains(
            "<p class=\"verdict bad\"><a href=\"#boot-1\">boot 1 of 2, 2026-11-22T04:47:47Z:"
                + " FAILED: useradd failed",
            "<p class=\"verdict bad\"><a href=\"#boot-2\">boot 2 of 2, 2026-11-22T04:39:15Z:"
                + " no PROVISIONING_REPORT</a></p>",
            "<section id=\"boot-1\">",
            "<section id=\"boot-2\">",
            "<a href=\"#boot-1\">boot 1 of 2, 2026-11-22T04:47:47Z: FAILED: useradd failed");
    assertThat(html.indexOf("class=\"verdict")).isLessThan(html.indexOf("<section"));
  }
}
