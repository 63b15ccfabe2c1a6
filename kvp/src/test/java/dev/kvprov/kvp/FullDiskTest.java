package dev.kvprov.kvp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.fixtures.FullFileSystem;
import dev.kvprov.fixtures.FullFileSystem.Fullness;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Writing a pool on a full file system: whole records or none, and last boot still cleared. */
class FullDiskTest {
  @TempDir Path dir;

  @BeforeEach
  void canMakeFullFileSystems() {
    FullFileSystem.assumeAvailable();
  }

  private static List<String> java(String... args) {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // JDK 24+ warns on stderr, which these runs merge into the lines compared, when
                // JNA loads its library without it (JDK 17 accepts it too)
                "--enable-native-access=ALL-UNNAMED",
                "-cp",
                System.getProperty("java.class.path"),
                FullDiskMain.class.getName()));
    command.addAll(List.of(args));
    return command;
  }

  private static List<String> run(Path dir, Fullness fullness, List<String> command)
      throws Exception {
    FullFileSystem.Run run = FullFileSystem.run(dir, fullness, command);
    assertThat(run.exit()).as(String.join("\n", run.lines())).isZero();
    return run.lines();
  }

  @Test
  void aBatchThatRunsOutOfSpacePartWay_leavesNoTornRecord_andTheNextOneFits() throws Exception {
    Path pools = Files.createDirectories(dir.resolve("hyperv"));
    String pool = pools.resolve(".kvp_pool_1").toString();
    // Three records (7,680 bytes) into one free page (4,096): the write stops part way.
    List<String> script =
        List.of("sh", "-c", "\"$@\" append \"$0\" 3; \"$@\" append \"$0\" 1", pool);
    List<String> command = new ArrayList<>(script);
    command.addAll(java());

    List<String> out = run(pools, Fullness.ONE_PAGE_LEFT, command);

    assertThat(out)
        .containsExactly(
            "failed: No space left on device",
            "appended 1",
            FullFileSystem.LISTING + ".kvp_pool_1 2560");
  }

  @Test
  void aFullArchive_doesNotKeepLastBootsRecordsInThePool_andSaysSo() throws Exception {
    Path pool = Files.createDirectories(dir.resolve("hyperv")).resolve(".kvp_pool_1");
    PoolFile.builder().file(pool).build().append(PeerRecords.record("last-boot", 0));
    Files.setLastModifiedTime(pool, FileTime.from(Instant.ofEpochSecond(1_000)));
    Path archive = Files.createDirectories(dir.resolve("archive"));

    List<String> out =
        run(
            archive,
            Fullness.NO_SPACE_NO_INODES,
            java("clear", pool.toString(), archive.toString(), "2000"));

    assertThat(out.get(0)).startsWith("CLEARED 1 ").contains("No space left on device");
    assertThat(Files.size(pool)).isZero();
  }
}
