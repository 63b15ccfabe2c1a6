package dev.kvprov.inspect.bundle;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What {@code kvp}'s own commands read for the bundle's {@code kvp/} files: the same input as the
 * bundle's, or, under a root whose pool or archives were not all taken, a view (a directory of hard
 * links) holding only what was, so that they say no more than the bundle holds. They hold what they
 * read (a tree's spans), so the view is bounded too: the pool and its newest archives only, and no
 * more than {@link #MAX_VIEW_BYTES} of them.
 *
 * @param options the input options the commands are given; empty when the input is more than they
 *     may read
 * @param view the view's directory, standing for {@code root} in what the commands say
 */
record BundleView(List<String> options, Optional<Path> view, Path root) {
  /**
   * The most pool bytes the commands are given between the pool and its archives: a tree of six 60
   * MiB pools took 380 MB of memory, one of 64 MiB takes under 100.
   */
  static final long MAX_VIEW_BYTES = 64L << 20;

  public BundleView {
    options = List.copyOf(options);
  }

  /** Whether the input is too large for the commands: a file larger than a pool holds. */
  public boolean tooLarge() {
    return options.isEmpty();
  }

  /** {@code text} with the view's paths said as the root's, which the ticket's reader knows. */
  public String shown(String text) {
    return view.map(v -> text.replace(v.toString(), root.toString())).orElse(text);
  }

  public static BundleView of(BundleInput input, BundlePools pools, BundleFiles files)
      throws IOException {
    Path root = input.root();
    if (input.given()) {
      Path file = Path.of(input.file());
      if (Files.isRegularFile(file) && Files.size(file) > BundleImageFiles.MAX_FILE_BYTES) {
        return new BundleView(List.of(), Optional.empty(), root);
      }
      return new BundleView(
          List.of(input.hostExport() ? "--host-xml" : "--file", input.file()),
          Optional.empty(),
          root);
    }
    String pool = Integer.toString(input.pool());
    if (!input.underRoot()) {
      Path file = input.dir().resolve(".kvp_pool_" + pool);
      if (Files.isRegularFile(file) && Files.size(file) > BundleImageFiles.MAX_FILE_BYTES) {
        return new BundleView(List.of(), Optional.empty(), root);
      }
      return new BundleView(
          List.of("--dir", input.dir().toString(), "--pool", pool), Optional.empty(), root);
    }
    BundleManifest manifest = files.manifest();
    // the pool and its newest archives only, even when all were taken
    List<BundlePool> forCommands = new ArrayList<>();
    for (BundlePool t : pools.taken()) {
      if (t.pool() == input.pool()) {
        forCommands.add(t);
      }
    }
    List<BundlePool> archived = forCommands.stream().filter(BundlePool::archived).toList();
    if (archived.size() > BundlePools.NEWEST_ARCHIVES) {
      List<BundlePool> older = archived.subList(0, archived.size() - BundlePools.NEWEST_ARCHIVES);
      forCommands.removeAll(older);
      manifest.add(
          "kvp/ reads pool "
              + pool
              + " and its newest "
              + BundlePools.NEWEST_ARCHIVES
              + " archives: "
              + (older.size() == 1 ? "the older one is" : "the " + older.size() + " older ones are")
              + " in pools/archive/ only (read them with kvp --file)");
    }
    // and, newest first, no more than a pool's worth of records between them
    long bytes = 0;
    for (BundlePool t : forCommands) {
      bytes += t.archived() ? 0 : Files.size(t.file());
    }
    List<BundlePool> beyond = new ArrayList<>();
    for (int i = forCommands.size() - 1; i >= 0; i--) {
      BundlePool t = forCommands.get(i);
      if (t.archived()) {
        long size = Files.size(t.file());
        if (bytes + size > MAX_VIEW_BYTES) {
          beyond.add(t);
        } else {
          bytes += size;
        }
      }
    }
    if (!beyond.isEmpty()) {
      forCommands.removeAll(beyond);
      manifest.add(
          "kvp/ reads at most "
              + (MAX_VIEW_BYTES >> 20)
              + " MiB of pool "
              + pool
              + ": "
              + (beyond.size() == 1 ? "1 more archive is" : beyond.size() + " more archives are")
              + " in pools/archive/ only (read them with kvp --file)");
    }
    if (forCommands.size() == pools.onDiskForCommands()) {
      return new BundleView(
          List.of("--root", root.toString(), "--pool", pool), Optional.empty(), root);
    }
    Path view = Files.createDirectories(files.work("kvp-bundle-view"));
    for (BundlePool t : forCommands) {
      Path in =
          view.resolve(
              t.archived()
                  ? "var/lib/kvprov/kvp-archive/" + t.file().getFileName()
                  : "var/lib/hyperv/" + t.file().getFileName());
      Files.createDirectories(in.getParent());
      try {
        Files.createLink(in, t.file());
      } catch (IOException | UnsupportedOperationException e) {
        // another file system: a copy (at most the few pools taken, each at most 64 MiB)
        Files.copy(t.file(), in, LinkOption.NOFOLLOW_LINKS);
      }
    }
    return new BundleView(
        List.of("--root", view.toString(), "--pool", pool), Optional.of(view), root);
  }
}
