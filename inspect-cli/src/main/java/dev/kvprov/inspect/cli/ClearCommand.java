package dev.kvprov.inspect.cli;

import dev.kvprov.inspect.pool.InputKind;
import dev.kvprov.inspect.pool.PoolSource;
import dev.kvprov.kvp.BootClock;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.PoolLockTimeoutException;
import dev.kvprov.kvp.StaleClearResult;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvp clear}: empty a pool through the locked store, kept in an archive if asked. */
@Command(
    name = "clear",
    mixinStandardHelpOptions = true,
    description = {
      "Empty a pool, under its locks, as writers do once per boot.",
      "",
      "--if-stale empties it only when it was last written before this boot (the boot",
      "time from /proc/stat), as kvprov does at start-up. --archive DIR keeps a copy",
      "first, named after the boot, as kvprov's own archive does: nothing is lost.",
      "",
      "Any pool but this machine's live one (/var/lib/hyperv/.kvp_pool_N) gets a copy",
      "even without --archive, kept for good and said: with --root R in R's own",
      "archive (/var/lib/kvprov/kvp-archive under R, where kvp --root finds it), else",
      "beside the pool. A file that is not a pool (an export, text, a tarball) is left",
      "as it is: kvp clear says what it looks like and exits 3."
    },
    footer = {
      "",
      "",
      "Examples:",
      "  sudo kvp clear --if-stale --archive /var/lib/kvprov/kvp-archive",
      "  kvp clear --file test-pool.kvp"
    })
final class ClearCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin PoolOptions input;

  @Option(names = "--if-stale", description = "Only if written before this boot began.")
  boolean ifStale;

  @Option(
      names = "--archive",
      paramLabel = "DIR",
      description =
          "Copy the records to DIR first (the newest 5 copies there are kept); see above for"
              + " the copy made without it.")
  Path archive;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    PoolFile.Builder builder;
    Path path = input.path();
    try {
      builder = input.writablePool();
    } catch (IOException e) {
      err.println("kvp clear: " + path + ": " + PoolSource.why(e));
      return ExitCode.IO.code;
    }
    Path archive = this.archive;
    if (archive != null) {
      builder.archive(archive, PoolFile.DEFAULT_ARCHIVE_KEEP);
    } else if (!isLivePool(path)) {
      // A pool copied off a VM, or a rescued disk's, may be the only record of what happened:
      // never emptied without a copy, and the copy is never pruned.
      try {
        archive = ownArchive(path);
      } catch (IOException e) {
        err.println("kvp clear: " + path + ": " + PoolSource.why(e) + "; nothing cleared");
        return ExitCode.IO.code;
      }
      builder.archive(archive, Integer.MAX_VALUE);
    }
    PoolFile pool = builder.build();
    if (archive != null) {
      // asked for a copy: without a place for it, nothing is cleared (kvprov at boot clears
      // all the same; a person who asked for the copy gets it, or keeps the pool)
      try {
        Files.createDirectories(archive);
      } catch (IOException e) {
        err.println("kvp clear: " + archive + ": " + PoolSource.why(e) + "; nothing cleared");
        return ExitCode.IO.code;
      }
      if (!Files.isWritable(archive)) {
        err.println("kvp clear: " + archive + ": not writable; nothing cleared");
        return ExitCode.IO.code;
      }
    }
    StaleClearResult result;
    try {
      result = ifStale ? pool.clearIfStale(BootClock.system().bootTime()) : pool.clear();
    } catch (PoolLockTimeoutException e) {
      err.println("kvp clear: " + pool.path() + ": " + e.getMessage());
      return ExitCode.IO.code;
    } catch (IOException e) {
      err.println("kvp clear: " + pool.path() + ": " + PoolSource.why(e));
      return ExitCode.IO.code;
    }
    switch (result.outcome()) {
      case ABSENT -> out.println("no pool at " + pool.path() + ": nothing to clear");
      case FRESH -> out.println(pool.path() + " was written this boot: left as it is");
      case CLEARED -> {
        out.println(
            "cleared "
                + result.recordsCleared()
                + " record(s) from "
                + pool.path()
                + result.archive().map(a -> "; a copy is in " + a).orElse(""));
        if (result.notArchived().isPresent()) {
          err.println("kvp clear: no copy was kept: " + result.notArchived().get());
          return ExitCode.IO.code;
        }
      }
    }
    return ExitCode.OK.code;
  }

  /** This machine's own pools, which kvprov itself archives at boot: cleared as asked. */
  static boolean isLivePool(Path path) {
    Path absolute = path.toAbsolutePath().normalize();
    return PoolFile.DEFAULT_DIRECTORY.equals(absolute.getParent())
        && absolute.getFileName().toString().matches("\\.kvp_pool_[0-3]");
  }

  /**
   * Where a pool that is not this machine's keeps its copy: a rescued disk's in the disk's own
   * archive of earlier boots (never through a link out of it), any other beside the pool.
   */
  private Path ownArchive(Path path) throws IOException {
    Path root = input.source != null ? input.source.root : null;
    if (root == null) {
      Path parent = path.toAbsolutePath().getParent();
      return parent == null ? Path.of("/") : parent;
    }
    String under =
        java.nio.file.Path.of("/").relativize(PoolFile.DEFAULT_ARCHIVE_DIRECTORY).toString();
    java.util.Optional<dev.kvprov.kvp.WayOut> out = dev.kvprov.kvp.WayOut.find(root, under);
    if (out.isPresent()) {
      throw new InputKind.WrongInput(out.get().describe(root) + ": no place for the copy there");
    }
    return root.resolve(under);
  }
}
