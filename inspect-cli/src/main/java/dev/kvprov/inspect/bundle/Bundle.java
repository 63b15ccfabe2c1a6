package dev.kvprov.inspect.bundle;

import dev.kvprov.inspect.pool.PoolSource;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;

/**
 * One support bundle: what it takes from its input, then the {@code .tar.gz} made of it. The
 * command names the input and the target; the parts (pools, kvp's own views, configuration,
 * markers, journal) are this package's business.
 */
public final class Bundle {
  /** How many archives of each pool go in without {@code --all-archives}. */
  public static final int NEWEST_ARCHIVES = BundlePools.NEWEST_ARCHIVES;

  private final BundleInput input;
  private final BundleManifest manifest = new BundleManifest();
  private final BundlePools pools;

  private Bundle(BundleInput input, boolean allArchives) {
    this.input = input;
    this.pools = BundlePools.of(input, allArchives, manifest);
  }

  /** Finds the pools and archives {@code input} names: the newest few, or all of them. */
  public static Bundle of(BundleInput input, boolean allArchives) {
    return new Bundle(input, allArchives);
  }

  /** Why there is nothing to bundle: a rescued root with no pool and no archive in it. */
  public Optional<String> nothing() {
    if (!input.underRoot() || pools.found() > 0) {
      return Optional.empty();
    }
    Path root = input.root();
    return Optional.of(
        "nothing to bundle under "
            + root
            + ": no pool in "
            + root.resolve("var/lib/hyperv")
            + " (.kvp_pool_0 to .kvp_pool_3) and "
            + PoolSource.unreadableArchives(root)
                .orElse(
                    "no archive in "
                        + root.resolve("var/lib/kvprov/kvp-archive")
                        + "; is "
                        + root
                        + " a mounted OS disk?"));
  }

  /**
   * Writes the bundle to {@code target}, then the manifest's lines to {@code out}.
   *
   * @return how many files it holds
   */
  public int write(Path target, boolean redactUsers, KvpCommands kvp, PrintWriter out)
      throws IOException {
    // every name is learned before anything is written: one user, one hash, in every file
    BundleUsers users =
        redactUsers ? BundleUsers.learned(input, pools.taken(), manifest) : BundleUsers.kept();
    try (BundleFiles files = BundleFiles.to(target, manifest)) {
      parts(users, kvp, files);
      manifest.lines().forEach(out::println);
      files.finish();
      return files.files();
    }
  }

  /** The parts, in the order the manifest says them: the pools first, the machine's state last. */
  private void parts(BundleUsers users, KvpCommands kvp, BundleFiles files) throws IOException {
    for (BundlePool pool : pools.taken()) {
      BundlePoolCopy.copy(pool, input, users, files);
    }
    new BundleKvpFiles(BundleView.of(input, pools, files), kvp, users, files).add();
    if (input.given()) {
      // a file or an export copied from a VM: this machine's state is not that VM's
      files.manifest().add("not taken: configuration, markers and journal (the input is a file)");
    } else {
      BundleConfig.add(input.root(), users, files);
      BundleMarkers.add(input.root(), users, files);
      BundleJournal.installed().add(input, users, files);
    }
  }
}
