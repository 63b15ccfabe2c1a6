package dev.kvprov.inspect.bundle;

import dev.kvprov.inspect.pool.InputKind;
import dev.kvprov.inspect.pool.PoolSource;
import dev.kvprov.kvp.PoolArchive;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which pool files go into a bundle: pools 0 to 3 and the archives of earlier boots (the newest of
 * each pool unless all are asked for), or the one file given. Each is looked at (kind, size, no
 * link), not read; what is left out, and why, goes into the manifest.
 *
 * @param taken the files to copy, archives oldest first
 * @param found the pool files found, taken or not: none under a root means the wrong directory
 * @param onDiskForCommands the files of the pool {@code kvp}'s commands read under the root, its
 *     archives and itself: when all are taken, they can read the root itself
 */
record BundlePools(List<BundlePool> taken, int found, int onDiskForCommands) {
  /**
   * Archives taken of each pool unless all are asked for: kvprov itself keeps the newest five, so
   * this is every boot kvprov left; more are there only when something else put them there.
   */
  public static final int NEWEST_ARCHIVES = 5;

  private static final Pattern POOL_NUMBER = Pattern.compile("(?:\\.kvp_pool_|^pool)(\\d)");

  public BundlePools {
    taken = List.copyOf(taken);
  }

  public static BundlePools of(BundleInput input, boolean allArchives, BundleManifest manifest) {
    List<Path> files = new ArrayList<>();
    int onDisk = 0;
    if (input.given()) {
      files.add(Path.of(input.file()));
    } else {
      Path root = input.root();
      Path directory = input.poolDirectory();
      for (int pool = 0; pool <= 3; pool++) {
        Path file = directory.resolve(".kvp_pool_" + pool);
        // Under a root, never through a link that leads out of it: the rule of every --root read.
        Optional<String> out =
            input.underRoot()
                ? PoolSource.wayOut(root, PoolSource.poolUnderRoot(pool))
                : Optional.empty();
        if (out.isPresent()) {
          manifest.addOnce("not read: " + out.get());
          continue;
        }
        if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
          files.add(file);
          if (pool == input.pool()) {
            onDisk++;
          }
        }
      }
      if (files.isEmpty()) {
        manifest.add("not read: no pool in " + directory);
      }
      Optional<String> unreadable = PoolSource.unreadableArchives(root);
      if (unreadable.isPresent()) {
        manifest.add("not read: " + unreadable.get());
      } else {
        Path archives = root.resolve("var/lib/kvprov/kvp-archive");
        for (int pool = 0; pool <= 3; pool++) {
          try {
            List<Path> copies = PoolArchive.copies(archives, pool);
            if (pool == input.pool()) {
              onDisk += copies.size();
            }
            for (Path copy : newest(copies, pool, allArchives, manifest)) {
              Optional<String> out = PoolSource.wayOut(root, root.relativize(copy).toString());
              if (out.isPresent()) {
                manifest.add("not read: " + out.get());
              } else {
                files.add(copy);
              }
            }
          } catch (IOException e) {
            manifest.add("not read: " + archives + ": " + PoolSource.why(e));
          }
        }
      }
    }
    List<BundlePool> taken = new ArrayList<>();
    for (Path file : files) {
      try {
        InputKind kind =
            input.given() ? BundleImageFiles.givenKind(file) : BundleImageFiles.kindInImage(file);
        String wrong = input.hostExport() ? exportProblem(kind) : kind.notAPool();
        if (wrong != null) {
          manifest.add("not taken: " + file + ": " + wrong);
          continue;
        }
        boolean archived = file.getParent() != null && file.getParent().endsWith("kvp-archive");
        taken.add(
            new BundlePool(
                file,
                (archived ? "pools/archive/" : "pools/") + file.getFileName(),
                poolNumber(file.getFileName().toString())));
      } catch (IOException e) {
        manifest.add("not read: " + file + ": " + PoolSource.why(e));
      }
    }
    return new BundlePools(taken, files.size(), onDisk);
  }

  /** The newest archives of {@code pool}, oldest first, and a line for those left out. */
  private static List<Path> newest(
      List<Path> copies, int pool, boolean all, BundleManifest manifest) {
    if (all || copies.size() <= NEWEST_ARCHIVES) {
      return copies;
    }
    List<Path> left = copies.subList(0, copies.size() - NEWEST_ARCHIVES);
    manifest.add(
        "left out: "
            + left.size()
            + (left.size() == 1 ? " older archive" : " older archives")
            + " of pool "
            + pool
            + " ("
            + left.get(0).getFileName()
            + (left.size() == 1 ? "" : " to " + left.get(left.size() - 1).getFileName())
            + "); --all-archives takes them");
    return copies.subList(copies.size() - NEWEST_ARCHIVES, copies.size());
  }

  private static int poolNumber(String name) {
    Matcher m = POOL_NUMBER.matcher(name);
    return m.find() ? Integer.parseInt(m.group(1)) : -1;
  }

  /** Why {@code kind} is not a host-side export, or null when it is one. */
  private static String exportProblem(InputKind kind) {
    return kind == InputKind.HOST_EXPORT
        ? null
        : "not a host-side export (" + kind.name().toLowerCase(Locale.ROOT).replace('_', ' ') + ")";
  }
}
