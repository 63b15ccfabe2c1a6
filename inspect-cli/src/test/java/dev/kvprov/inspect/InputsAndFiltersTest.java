package dev.kvprov.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvprov.inspect.cli.KvpCommandTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --root} with archived boots, read-only inputs, and list's filters and raw view. */
class InputsAndFiltersTest {
  @TempDir Path dir;

  /** A rescued disk: two archived boots (named by the boot that cleared them) and the live pool. */
  private Path rescuedDisk() throws Exception {
    Path root = dir.resolve("mnt");
    Path archive = Files.createDirectories(root.resolve("var/lib/kvprov/kvp-archive"));
    Path hyperv = Files.createDirectories(root.resolve("var/lib/hyperv"));
    Files.write(
        archive.resolve("pool1-1795322355.kvp"), new RawPool().add("boot", "first").bytes());
    Files.write(
        archive.resolve("pool1-1795400000.kvp"), new RawPool().add("boot", "second").bytes());
    Files.write(
        archive.resolve("pool2-1795400000.kvp"), new RawPool().add("boot", "pool 2").bytes());
    Files.write(archive.resolve("notes.txt"), "not a copy".getBytes());
    Files.write(hyperv.resolve(".kvp_pool_1"), new RawPool().add("boot", "this one").bytes());
    return root;
  }

  @Test
  void root_readsArchivedBootsOldestFirst_thenThePool() throws Exception {
    Path root = rescuedDisk();

    CliRun json = CliRun.of("list", "--json", "--root", root.toString());
    CliRun human = CliRun.of("list", "--root", root.toString());

    assertThat(json.exit()).as(json.err()).isZero();
    List<JsonNode> items = json.jsonLines();
    assertThat(items.stream().map(i -> i.path("value").asText()))
        .containsExactly("first", "second", "this one");
    assertThat(items.get(0).path("source").asText()).endsWith("pool1-1795322355.kvp");
    assertThat(items.get(2).path("source").asText()).endsWith("var/lib/hyperv/.kvp_pool_1");
    assertThat(human.out().lines().filter(l -> l.startsWith("== "))).hasSize(3);
  }

  @Test
  void root_withOnlyArchives_stillReadsThem() throws Exception {
    Path root = rescuedDisk();
    Files.delete(root.resolve("var/lib/hyperv/.kvp_pool_1"));

    CliRun run = CliRun.of("list", "--json", "--root", root.toString(), "--pool", "2");

    assertThat(run.exit()).isZero();
    assertThat(run.jsonLines())
        .singleElement()
        .satisfies(i -> assertThat(i.path("value").asText()).isEqualTo("pool 2"));
  }

  @Test
  void aMissingPool_isAnIoError_namingIt() {
    CliRun run = CliRun.of("list", "--dir", dir.resolve("nowhere").toString());

    assertThat(run.exit()).isEqualTo(3);
    assertThat(run.err()).contains("kvp list: ", "nowhere/.kvp_pool_1: no such file");
  }

  @Test
  void aReadOnlyLivePool_isReadAndLeftUnchanged() throws Exception {
    Path pool = dir.resolve(".kvp_pool_1");
    byte[] bytes = new RawPool().add("k", "v").addBytes(new byte[] {1, 2, 3}).bytes();
    Files.write(pool, bytes);
    Files.setPosixFilePermissions(pool, PosixFilePermissions.fromString("r--r--r--"));
    long modified = Files.getLastModifiedTime(pool).toMillis();

    for (String command : List.of("list", "tree", "blame", "doctor", "report", "decode")) {
      CliRun run = CliRun.of(command, "--dir", dir.toString());
      assertThat(run.exit()).as(command + ": " + run.err()).isIn(0, 1);
      assertThat(run.err()).as(command).doesNotContain("Exception");
    }

    assertThat(Files.readAllBytes(pool)).isEqualTo(bytes);
    assertThat(Files.getLastModifiedTime(pool).toMillis()).isEqualTo(modified);
  }

  @Test
  void list_filtersByLevelAndTime() {
    String pool = KvpCommandTest.CLOUD_INIT_POOL.toString();

    CliRun all = CliRun.of("list", "--json", "--file", pool);
    CliRun since =
        CliRun.of("list", "--json", "--file", pool, "--since", "2026-11-22T04:47:46.4227Z");
    CliRun warn = CliRun.of("list", "--json", "--file", pool, "--level", "warn");

    List<JsonNode> items = all.jsonLines();
    List<JsonNode> later =
        items.stream()
            .filter(
                i ->
                    i.path("event").path("time").asText().compareTo("2026-11-22T04:47:46.4227")
                        >= 0)
            .toList();
    assertThat(later).isNotEmpty().hasSizeLessThan(items.size());
    assertThat(since.jsonLines()).isEqualTo(later);
    assertThat(warn.jsonLines())
        .isEqualTo(
            items.stream()
                .filter(
                    i -> List.of("WARN", "FAIL").contains(i.path("event").path("result").asText()))
                .toList());
  }

  @Test
  void list_rejectsAnUnknownLevel() {
    CliRun run = CliRun.of("list", "--level", "LOUD");

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err()).contains("--level is one of DEBUG, INFO, WARN, ERROR; not LOUD");
  }

  @Test
  void listRaw_showsEverySlotAsStored_piecesNotJoined() {
    CliRun raw =
        CliRun.of("list", "--raw", "--json", "--file", KvpCommandTest.CLOUD_INIT_POOL.toString());

    assertThat(raw.exit()).isZero();
    List<JsonNode> records = raw.jsonLines();
    assertThat(records).hasSize(12);
    assertThat(records.get(6).path("offset").asLong()).isEqualTo(6 * 2560L);
    assertThat(records.get(6).path("key").asText()).endsWith("|1");
    assertThat(records.get(6).path("value").asText()).contains("\"msg_i\":1");
  }
}
