package dev.kvprov.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The libraries a fresh {@code kvp} JVM loads: Jackson and commons-csv only for output that needs
 * them, not for a kvprov boot's plain text (docs/performance.md).
 */
class LoadedLibrariesTest {
  private static final String JACKSON = "com.fasterxml.jackson.";
  private static final String COMMONS_CSV = "org.apache.commons.csv.";

  @TempDir Path dir;

  @Test
  void plainList_ofAKvprovBoot_loadsNeitherJacksonNorCommonsCsv() throws Exception {
    List<String> loaded = classesLoaded("list", "--file", demoBoot().toString());

    assertThat(loaded).contains("dev.kvprov.inspect.cli.ListCommand");
    assertThat(loaded).noneMatch(c -> c.startsWith(JACKSON) || c.startsWith(COMMONS_CSV));
  }

  @Test
  void jsonList_loadsJackson() throws Exception {
    List<String> loaded = classesLoaded("list", "--json", "--file", demoBoot().toString());

    assertThat(loaded).anyMatch(c -> c.startsWith(JACKSON));
  }

  /** A demo boot's pool (kvprov's records and its PROVISIONING_REPORT), named as a live pool. */
  private Path demoBoot() throws Exception {
    Path pool = dir.resolve(".kvp_pool_1");
    Files.copy(GoldenOutputTest.DEMO.resolve("demo-ok.kvp"), pool);
    return pool;
  }

  /** Runs kvp in a JVM of its own; the classes it loaded, by name. */
  private List<String> classesLoaded(String... args) throws Exception {
    LoadedClasses run = LoadedClasses.ofKvp(dir, args);
    assertThat(run.output()).contains("provision");
    return run.classes();
  }
}
