package dev.kvprov.inspect.bundle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.inspect.TestBundle;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code kvp}'s own commands are given: the view is judged on file sizes only, so sparse files
 * stand in for pools of tens of MiB without writing them.
 */
class BundleViewTest {
  private static final long MIB = 1 << 20;

  @TempDir Path dir;

  private Path root;

  private BundlePool sparse(String relative, long mib, String name) throws Exception {
    Path file = root.resolve(relative);
    Files.createDirectories(file.getParent());
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.setLength(mib * MIB);
    }
    return new BundlePool(file, name, 1);
  }

  /** Pool 1 of {@code poolMib} and {@code archives} archives of {@code archiveMib}, all taken. */
  private List<BundlePool> taken(long poolMib, int archives, long archiveMib) throws Exception {
    root = dir.resolve("rescued");
    List<BundlePool> taken = new ArrayList<>();
    for (int i = 1; i <= archives; i++) {
      String name = "pool1-" + (1795322000L + i) + ".kvp";
      taken.add(sparse("var/lib/kvprov/kvp-archive/" + name, archiveMib, "pools/archive/" + name));
    }
    taken.add(sparse("var/lib/hyperv/.kvp_pool_1", poolMib, "pools/.kvp_pool_1"));
    return taken;
  }

  private BundleInput rescued() {
    return new BundleInput(BundleInput.Kind.ROOT, root, Path.of("/var/lib/hyperv"), "", 1);
  }

  @Test
  void everythingOnDiskTaken_andWithinTheBudget_isReadFromTheRootItself() throws Exception {
    List<BundlePool> taken = taken(10, 2, 20);

    BundleView view;
    try (TestBundle bundle = new TestBundle(dir)) {
      view = BundleView.of(rescued(), new BundlePools(taken, 3, 3), bundle.files);
      assertThat(bundle.manifest.lines()).isEmpty();
    }

    assertThat(view.options()).containsExactly("--root", root.toString(), "--pool", "1");
    assertThat(view.view()).isEmpty();
  }

  @Test
  void archivesPastTheBudget_areLeftToTheBundle_newestKept() throws Exception {
    // 10 + 20 + 20 = 50 MiB fits; one more archive of 20 would be 70, past 64
    List<BundlePool> taken = taken(10, 4, 20);

    try (TestBundle bundle = new TestBundle(dir)) {
      BundleView view = BundleView.of(rescued(), new BundlePools(taken, 5, 5), bundle.files);

      Path made = view.view().orElseThrow();
      assertThat(view.options()).containsExactly("--root", made.toString(), "--pool", "1");
      List<String> inView;
      try (Stream<Path> all = Files.walk(made)) {
        inView =
            all.filter(Files::isRegularFile)
                .map(p -> made.relativize(p).toString())
                .sorted()
                .toList();
      }
      assertThat(inView)
          .containsExactly(
              "var/lib/hyperv/.kvp_pool_1",
              "var/lib/kvprov/kvp-archive/pool1-1795322003.kvp",
              "var/lib/kvprov/kvp-archive/pool1-1795322004.kvp");
      assertThat(bundle.manifest.lines())
          .containsExactly(
              "kvp/ reads at most 64 MiB of pool 1: 2 more archives are in pools/archive/ only"
                  + " (read them with kvp --file)");
      assertThat(view.shown("== " + made.resolve("var/lib/hyperv/.kvp_pool_1")))
          .isEqualTo("== " + root.resolve("var/lib/hyperv/.kvp_pool_1"));
    }
  }

  @Test
  void moreThanTheNewestArchives_areNeverGivenToTheCommands() throws Exception {
    List<BundlePool> taken = taken(1, 7, 1);

    try (TestBundle bundle = new TestBundle(dir)) {
      BundleView view = BundleView.of(rescued(), new BundlePools(taken, 8, 8), bundle.files);

      assertThat(view.view()).isPresent();
      assertThat(bundle.manifest.lines())
          .containsExactly(
              "kvp/ reads pool 1 and its newest 5 archives: the 2 older ones are in"
                  + " pools/archive/ only (read them with kvp --file)");
    }
  }

  @Test
  void aFileGiven_isGivenAsItIs_unlessLargerThanAPoolHolds() throws Exception {
    root = dir;
    Path small = sparse("small.kvp", 1, "pools/small.kvp").file();
    Path large = sparse("large.kvp", 65, "pools/large.kvp").file();

    try (TestBundle bundle = new TestBundle(dir)) {
      BundleView ofSmall =
          BundleView.of(
              new BundleInput(BundleInput.Kind.FILE, Path.of("/"), dir, small.toString(), 1),
              new BundlePools(List.of(), 1, 0),
              bundle.files);
      BundleView ofExport =
          BundleView.of(
              new BundleInput(BundleInput.Kind.HOST_EXPORT, Path.of("/"), dir, small.toString(), 1),
              new BundlePools(List.of(), 1, 0),
              bundle.files);
      BundleView ofLarge =
          BundleView.of(
              new BundleInput(BundleInput.Kind.FILE, Path.of("/"), dir, large.toString(), 1),
              new BundlePools(List.of(), 1, 0),
              bundle.files);

      assertThat(ofSmall.options()).containsExactly("--file", small.toString());
      assertThat(ofExport.options()).containsExactly("--host-xml", small.toString());
      assertThat(ofLarge.tooLarge()).isTrue();
      assertThat(ofSmall.view()).isEqualTo(Optional.empty());
    }
  }
}
