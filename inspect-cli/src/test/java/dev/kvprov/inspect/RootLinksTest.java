package dev.kvprov.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kvp --root R} reads a rescued disk, and only it: a link on the disk that leads out of R
 * (an absolute {@code var/lib/hyperv -> /var/lib/hyperv} resolves into the rescue machine) is
 * refused with one line naming it, and what it leads to is never read nor changed. A link that
 * stays inside R is followed. The rule is kvprov's own for what it writes under a root.
 */
class RootLinksTest {
  @TempDir Path dir;

  private Path root;
  private Path outside;

  private static final List<List<String>> READERS =
      List.of(
          List.of("list"),
          List.of("list", "--json"),
          List.of("dump"),
          List.of("tree"),
          List.of("blame"),
          List.of("timeline"),
          List.of("report"),
          List.of("status"),
          List.of("doctor"),
          List.of("get", "rescue-machine"),
          List.of("export", "--otlp-json", "-"));

  private static void pool(Path file, String key, String value) throws Exception {
    Files.createDirectories(file.getParent());
    PoolFile.builder().file(file).build().append(new KvpRecord(key, value));
  }

  /** The rescue machine's own pool and archives, outside the disk. */
  @BeforeEach
  void aRescueMachine() throws Exception {
    root = Files.createDirectories(dir.resolve("rescued"));
    outside = Files.createDirectories(dir.resolve("rescue-machine"));
    pool(outside.resolve("hyperv/.kvp_pool_1"), "rescue-machine", "its own pool");
    pool(outside.resolve("kvp-archive/pool1-1700000000.kvp"), "rescue-machine", "its archive");
  }

  private Path hyperv() {
    return root.resolve("var/lib/hyperv");
  }

  private Path archive() {
    return root.resolve("var/lib/kvprov/kvp-archive");
  }

  private void linkOut(Path link, String to) throws Exception {
    Files.createDirectories(link.getParent());
    Files.createSymbolicLink(link, outside.resolve(to));
  }

  private void refusedEverywhere(Path link, int pools) throws Exception {
    for (List<String> command : READERS) {
      String[] args =
          java.util.stream.Stream.concat(command.stream(), Stream("--root", root.toString()))
              .toArray(String[]::new);
      CliRun run = CliRun.of(args);
      String all = run.out() + run.err();

      assertThat(all).as("%s", command).doesNotContain("its own pool", "its archive");
      assertThat(run.err().lines().filter(l -> l.contains("leads out of")))
          .as("%s: %s", command, run.err())
          .containsExactly(
              "kvp "
                  + command.get(0)
                  + ": "
                  + link
                  + " leads out of "
                  + root
                  + " (to "
                  + link.toRealPath()
                  + "): not read");
      if (pools == 0) {
        assertThat(run.exit()).as("%s: %s", command, run.err()).isEqualTo(3);
      }
    }
  }

  private static java.util.stream.Stream<String> Stream(String... s) {
    return java.util.stream.Stream.of(s);
  }

  /** Unpacks the bundle with the real tar: none of its files holds any of {@code texts}. */
  private void noFileOfTheBundleSays(Path bundle, String... texts) throws Exception {
    Path unpacked = Files.createDirectories(dir.resolve("unpacked"));
    Process tar =
        new ProcessBuilder("tar", "-xzf", bundle.toString(), "-C", unpacked.toString())
            .inheritIO()
            .start();
    assertThat(tar.waitFor()).isZero();
    try (java.util.stream.Stream<Path> files = Files.walk(unpacked)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        assertThat(new String(Files.readAllBytes(file), java.nio.charset.StandardCharsets.UTF_8))
            .as("%s", file)
            .doesNotContain(texts);
      }
    }
  }

  @Test
  void aBundleOfARoot_takesNothingThroughALinkOut_andSaysSo() throws Exception {
    pool(archive().resolve("pool1-1795322355.kvp"), "disk", "an earlier boot of the disk");
    linkOut(hyperv(), "hyperv");
    Path bundle = dir.resolve("ticket.tar.gz");

    CliRun run = CliRun.of("bundle", "--root", root.toString(), "-o", bundle.toString());

    assertThat(run.exit()).as(run.err()).isZero();
    noFileOfTheBundleSays(bundle, "its own pool", "its archive");
    assertThat(run.out() + run.err()).contains(hyperv() + " leads out of " + root);
  }

  @Test
  void theStateAndConfigurationLinkedOut_areNotRead_byStatusOrBundle() throws Exception {
    pool(hyperv().resolve(".kvp_pool_1"), "disk", "the last boot of the disk");
    Path state = Files.createDirectories(outside.resolve("kvprov-state"));
    Files.writeString(state.resolve("rescue-machine-id.ready"), "");
    Files.writeString(state.resolve("rescue-machine-id.provisioned"), "");
    Path config = Files.createDirectories(outside.resolve("etc-kvprov"));
    Files.writeString(config.resolve("kvprov.toml"), "# the rescue machine's own settings\n");
    linkOut(root.resolve("var/lib/kvprov"), "kvprov-state");
    linkOut(root.resolve("etc/kvprov"), "etc-kvprov");

    CliRun status = CliRun.of("status", "--root", root.toString());

    assertThat(status.out()).doesNotContain("rescue-machine-id").contains("markers:  none");
    assertThat(status.err())
        .isEqualTo(
            "kvp status: "
                + root.resolve("var/lib/kvprov")
                + " leads out of "
                + root
                + " (to "
                + state.toRealPath()
                + "): not read\n");

    Path bundle = dir.resolve("ticket.tar.gz");
    CliRun run = CliRun.of("bundle", "--root", root.toString(), "-o", bundle.toString());

    assertThat(run.exit()).as(run.err()).isZero();
    noFileOfTheBundleSays(bundle, "rescue-machine-id", "the rescue machine's own settings");
    assertThat(run.out())
        .contains(root.resolve("var/lib/kvprov") + " leads out of " + root)
        .contains(root.resolve("etc/kvprov") + " leads out of " + root);
  }

  @Test
  void aPoolDirectoryLinkedOut_isNotRead_theDisksArchivesAre() throws Exception {
    pool(archive().resolve("pool1-1795322355.kvp"), "disk", "an earlier boot of the disk");
    linkOut(hyperv(), "hyperv");

    refusedEverywhere(hyperv(), 1);
    CliRun dump = CliRun.of("dump", "--root", root.toString());
    assertThat(dump.out()).isEqualTo("disk=an earlier boot of the disk\n");
  }

  @Test
  void anArchiveDirectoryLinkedOut_isNotRead_theDisksPoolIs() throws Exception {
    pool(hyperv().resolve(".kvp_pool_1"), "disk", "the last boot of the disk");
    linkOut(archive(), "kvp-archive");

    refusedEverywhere(archive(), 1);
    CliRun dump = CliRun.of("dump", "--root", root.toString());
    assertThat(dump.out()).isEqualTo("disk=the last boot of the disk\n");
  }

  @Test
  void aPoolFileLinkedOut_isNotRead() throws Exception {
    Files.createDirectories(hyperv());
    Files.createSymbolicLink(
        hyperv().resolve(".kvp_pool_1"), outside.resolve("hyperv/.kvp_pool_1"));

    refusedEverywhere(hyperv().resolve(".kvp_pool_1"), 0);
  }

  @Test
  void bothLinkedOut_nothingIsRead_exit3() throws Exception {
    linkOut(hyperv(), "hyperv");
    linkOut(archive(), "kvp-archive");

    CliRun run = CliRun.of("list", "--root", root.toString());

    assertThat(run.exit()).isEqualTo(3);
    assertThat(run.out()).isEmpty();
    assertThat(run.err())
        .doesNotContain("its own pool", "its archive")
        .contains(hyperv() + " leads out of");
  }

  @Test
  void aLinkThatStaysInsideTheRoot_isFollowed() throws Exception {
    pool(root.resolve("srv/hyperv/.kvp_pool_1"), "disk", "moved inside the disk");
    Files.createDirectories(hyperv().getParent());
    Files.createSymbolicLink(hyperv(), Path.of("../../srv/hyperv"));

    CliRun run = CliRun.of("dump", "--root", root.toString());

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.err()).isEmpty();
    assertThat(run.out()).isEqualTo("disk=moved inside the disk\n");
  }

  @Test
  void writes_throughALinkOut_leaveTheOutsidePoolAsItIs() throws Exception {
    linkOut(hyperv(), "hyperv");
    byte[] before = Files.readAllBytes(outside.resolve("hyperv/.kvp_pool_1"));

    for (List<String> command :
        List.of(
            List.of("clear"),
            List.of("set", "Support-Ticket", "4711"),
            List.of("delete", "rescue-machine"))) {
      String[] args =
          java.util.stream.Stream.concat(command.stream(), Stream("--root", root.toString()))
              .toArray(String[]::new);
      CliRun run = CliRun.of(args);

      assertThat(run.exit()).as("%s: %s", command, run.err()).isEqualTo(3);
      assertThat(run.err().lines()).hasSize(1);
      assertThat(run.err()).contains(hyperv() + " leads out of " + root);
      assertThat(Files.readAllBytes(outside.resolve("hyperv/.kvp_pool_1"))).isEqualTo(before);
    }
  }
}
