package dev.kvprov.inspect;

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
      "first, named after the boot, as kvprov's own archive does: nothing is lost."
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
      description = "Copy the records to DIR first (the newest 5 copies are kept).")
  Path archive;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    PoolFile.Builder builder = input.writablePool();
    if (archive != null) {
      builder.archive(archive, PoolFile.DEFAULT_ARCHIVE_KEEP);
    }
    PoolFile pool = builder.build();
    if (archive != null) {
      // asked for a copy: without a place for it, nothing is cleared (kvprov at boot clears
      // all the same; a person who asked for the copy gets it, or keeps the pool)
      try {
        Files.createDirectories(archive);
      } catch (IOException e) {
        err.println("kvp clear: " + archive + ": " + PoolReading.why(e) + "; nothing cleared");
        return 3;
      }
      if (!Files.isWritable(archive)) {
        err.println("kvp clear: " + archive + ": not writable; nothing cleared");
        return 3;
      }
    }
    StaleClearResult result;
    try {
      result = ifStale ? pool.clearIfStale(BootClock.system().bootTime()) : pool.clear();
    } catch (PoolLockTimeoutException e) {
      err.println("kvp clear: " + pool.path() + ": " + e.getMessage());
      return 3;
    } catch (IOException e) {
      err.println("kvp clear: " + pool.path() + ": " + PoolReading.why(e));
      return 3;
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
          return 3;
        }
      }
    }
    return 0;
  }
}
