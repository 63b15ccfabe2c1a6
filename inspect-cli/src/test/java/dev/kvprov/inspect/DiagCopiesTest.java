package dev.kvprov.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pool the agent wrote with {@code kvp.formats = ["kvprov", "diag"]} (made by {@code bin/kvprov
 * demo --scenario diag-records}, then copied from its {@code root/var/lib/hyperv/.kvp_pool_1}):
 * every step is in the pool twice, once in each grammar, and {@code kvp} shows it once.
 */
class DiagCopiesTest {
  static final Path POOL = GoldenOutputTest.DEMO.resolve("demo-diag-records.kvp");

  /** The names of the steps, as kvprov's own start records give them, in pool order. */
  private static List<String> kvprovSteps() throws Exception {
    List<String> names = new ArrayList<>();
    for (KvpRecord r : PoolFile.builder().file(POOL).build().read().records()) {
      if (r.key().startsWith("kvprov-1|") && r.key().contains("|start|")) {
        names.add(r.value().replaceFirst("^.*\\| Name: ([^|]*?)( \\|.*)?$", "$1"));
      }
    }
    return names;
  }

  @Test
  void thePool_holdsEveryStepInBothGrammars() throws Exception {
    List<String> diagStarts = new ArrayList<>();
    for (KvpRecord r : PoolFile.builder().file(POOL).build().read().records()) {
      String[] f = r.key().split("\\|", -1);
      if (f[0].equals("DIAG") && f[3].equals("start") && f[10].equals("0")) {
        assertThat(f[1]).startsWith("kvprov/");
        diagStarts.add(f[4]);
      }
    }
    assertThat(kvprovSteps()).hasSizeGreaterThan(10).isEqualTo(diagStarts);
  }

  @Test
  void tree_showsEachStepOnce() throws Exception {
    CliRun run = CliRun.of("tree", "--json", "--file", POOL.toString());

    assertThat(run.exit()).isZero();
    List<String> shown = new ArrayList<>();
    List<String> writers = new ArrayList<>();
    for (JsonNode root : run.json()) {
      walk(root, shown, writers);
    }
    assertThat(shown).isEqualTo(kvprovSteps());
    assertThat(writers).containsOnly("kvprov");
  }

  @Test
  void aCopyWithoutAVersion_isStillACopy_butAnotherAgentsRecordsAreNot(@TempDir Path dir)
      throws Exception {
    // kvprov names itself plain "kvprov" when it knows no version; "kvprovider" is someone else.
    Path bare = dir.resolve("bare.kvp");
    Path other = dir.resolve("other.kvp");
    PoolFile bareOut = PoolFile.builder().file(bare).build();
    PoolFile otherOut = PoolFile.builder().file(other).build();
    for (KvpRecord r : PoolFile.builder().file(POOL).build().read().records()) {
      if (r.key().startsWith("DIAG|kvprov/")) {
        String rest = r.key().substring(r.key().indexOf('|', "DIAG|".length()));
        bareOut.append(new KvpRecord("DIAG|kvprov" + rest, r.value()));
        otherOut.append(new KvpRecord("DIAG|kvprovider/1.0" + rest, r.value()));
      } else {
        bareOut.append(r);
        otherOut.append(r);
      }
    }

    List<String> shownBare = new ArrayList<>();
    for (JsonNode root : CliRun.of("tree", "--json", "--file", bare.toString()).json()) {
      walk(root, shownBare, new ArrayList<>());
    }
    List<String> writersOther = new ArrayList<>();
    for (JsonNode root : CliRun.of("tree", "--json", "--file", other.toString()).json()) {
      walk(root, new ArrayList<>(), writersOther);
    }

    assertThat(shownBare).isEqualTo(kvprovSteps());
    assertThat(writersOther).contains("kvprov", "azure-init-diag");
  }

  private static void walk(JsonNode span, List<String> names, List<String> writers) {
    names.add(span.path("name").asText());
    writers.add(span.path("writer").asText());
    span.path("children").forEach(child -> walk(child, names, writers));
  }

  @Test
  void timeline_showsEachStepsStartAndEndOnce() throws Exception {
    CliRun run = CliRun.of("timeline", "--json", "--file", POOL.toString());

    assertThat(run.exit()).isZero();
    Map<String, Integer> starts = new TreeMap<>();
    for (JsonNode row : run.json().path("rows")) {
      assertThat(row.path("writer").asText()).isIn("kvprov", "report");
      if (row.path("kind").asText().equals("start")) {
        starts.merge(row.path("name").asText(), 1, Integer::sum);
      }
    }
    assertThat(starts.keySet()).containsAll(kvprovSteps());
    assertThat(starts).containsEntry("provision.user", 1).containsEntry("provision", 1);
  }

  @Test
  void list_showsKvprovsRecords_andTheDiagCopiesOnlyWhenAskedFor() throws Exception {
    CliRun all = CliRun.of("list", "--json", "--file", POOL.toString());
    CliRun diag =
        CliRun.of("list", "--json", "--writer", "azure-init-diag", "--file", POOL.toString());

    assertThat(all.exit()).isZero();
    assertThat(all.jsonLines())
        .extracting(l -> l.path("writer").asText())
        .doesNotContain("azure-init-diag")
        .contains("kvprov");
    assertThat(diag.exit()).isZero();
    List<String> diagStarts =
        diag.jsonLines().stream()
            .filter(l -> l.path("event").path("type").asText().equals("start"))
            .map(l -> l.path("event").path("name").asText())
            .toList();
    assertThat(diagStarts).isEqualTo(kvprovSteps());
  }

  @Test
  void report_readsTheOneReport() throws Exception {
    CliRun run = CliRun.of("report", "--json", "--file", POOL.toString());

    assertThat(run.exit()).isZero();
    assertThat(run.json().path("fields").path("result").asText()).isEqualTo("success");
  }
}
