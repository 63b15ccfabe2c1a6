package dev.kvprov.inspect.bundle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.fixtures.Fixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which files a bundle takes: looked at, not read; each one left out said in the manifest. */
class BundlePoolsTest {
  @TempDir Path dir;

  private Path root;

  /** A rescued root: pool 1 and {@code archives} archived boots of it, oldest first. */
  private BundleInput rescued(int archives) throws Exception {
    byte[] pool = Fixtures.bytes(Fixtures.CLOUD_INIT_POOL);
    root = dir.resolve("rescued");
    Files.write(
        Files.createDirectories(root.resolve("var/lib/hyperv")).resolve(".kvp_pool_1"), pool);
    Path archive = Files.createDirectories(root.resolve("var/lib/kvprov/kvp-archive"));
    for (int i = 1; i <= archives; i++) {
      Files.write(archive.resolve("pool1-" + (1795322000L + i) + ".kvp"), pool);
    }
    return new BundleInput(BundleInput.Kind.ROOT, root, Path.of("/var/lib/hyperv"), "", 1);
  }

  private static java.util.List<String> names(BundlePools pools) {
    return pools.taken().stream().map(BundlePool::name).toList();
  }

  @Test
  void theNewestArchives_andThePool_areTaken_theOlderSaid() throws Exception {
    BundleManifest manifest = new BundleManifest();

    BundlePools pools = BundlePools.of(rescued(7), false, manifest);

    assertThat(names(pools))
        .containsExactly(
            "pools/.kvp_pool_1",
            "pools/archive/pool1-1795322003.kvp",
            "pools/archive/pool1-1795322004.kvp",
            "pools/archive/pool1-1795322005.kvp",
            "pools/archive/pool1-1795322006.kvp",
            "pools/archive/pool1-1795322007.kvp");
    assertThat(pools.taken()).allMatch(p -> p.pool() == 1);
    assertThat(pools.found()).isEqualTo(6);
    assertThat(pools.onDiskForCommands()).as("the pool and all 7 archives").isEqualTo(8);
    assertThat(manifest.lines())
        .containsExactly(
            "left out: 2 older archives of pool 1 (pool1-1795322001.kvp to pool1-1795322002.kvp);"
                + " --all-archives takes them");
  }

  @Test
  void allArchives_takesEveryOne() throws Exception {
    BundleManifest manifest = new BundleManifest();

    BundlePools pools = BundlePools.of(rescued(7), true, manifest);

    assertThat(pools.taken()).hasSize(8);
    assertThat(manifest.lines()).isEmpty();
  }

  @Test
  void aPoolReachedThroughALinkOutOfTheRoot_isNotRead_andSaidOnce() throws Exception {
    BundleInput input = rescued(1);
    Path elsewhere = Files.createDirectories(dir.resolve("rescue-machine"));
    Files.write(elsewhere.resolve(".kvp_pool_1"), Fixtures.bytes(Fixtures.CLOUD_INIT_POOL));
    Path hyperv = root.resolve("var/lib/hyperv");
    Files.delete(hyperv.resolve(".kvp_pool_1"));
    Files.delete(hyperv);
    Files.createSymbolicLink(hyperv, elsewhere);
    BundleManifest manifest = new BundleManifest();

    BundlePools pools = BundlePools.of(input, false, manifest);

    assertThat(names(pools)).containsExactly("pools/archive/pool1-1795322001.kvp");
    assertThat(manifest.lines()).hasSize(2);
    assertThat(manifest.lines().get(0)).startsWith("not read: ").contains(hyperv.toString());
    assertThat(manifest.lines().get(1)).isEqualTo("not read: no pool in " + hyperv);
  }

  @Test
  void aFileThatIsNoPool_isNotTaken_andOneThatIsNoExport_isNotTakenAsOne() throws Exception {
    Path media = Files.writeString(dir.resolve("ovf-env.xml"), Fixtures.text(Fixtures.OVF_ENV));
    Path pool = Files.write(dir.resolve("copied"), Fixtures.bytes(Fixtures.CLOUD_INIT_POOL));
    BundleManifest manifest = new BundleManifest();

    BundlePools asPool =
        BundlePools.of(
            new BundleInput(BundleInput.Kind.FILE, Path.of("/"), dir, media.toString(), 1),
            false,
            manifest);
    BundlePools asExport =
        BundlePools.of(
            new BundleInput(BundleInput.Kind.HOST_EXPORT, Path.of("/"), dir, pool.toString(), 1),
            false,
            manifest);
    BundlePools taken =
        BundlePools.of(
            new BundleInput(BundleInput.Kind.FILE, Path.of("/"), dir, pool.toString(), 1),
            false,
            manifest);

    assertThat(asPool.taken()).isEmpty();
    assertThat(asPool.found()).isEqualTo(1);
    assertThat(asExport.taken()).isEmpty();
    assertThat(taken.taken()).containsExactly(new BundlePool(pool, "pools/copied", -1));
    assertThat(manifest.lines())
        .hasSize(2)
        .anySatisfy(l -> assertThat(l).startsWith("not taken: " + media + ": "))
        .anySatisfy(
            l -> assertThat(l).startsWith("not taken: " + pool + ": not a host-side export ("));
  }
}
