package dev.kvprov.bench;

import dev.kvprov.kvp.BootClock;
import dev.kvprov.kvp.KvpLimits;
import dev.kvprov.kvp.KvpProblem;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolEntry;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.PoolSnapshot;
import dev.kvprov.kvp.StaleClearResult;
import dev.kvprov.kvp.ValueChunker;
import dev.kvprov.kvp.VmId;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A smoke run of the kvp library against a real pool file: what {@code bin/kvp-smoke} runs until
 * the agent exists.
 *
 * <p>Usage: {@code SmokeRun [DIR] [POOL_FILE_TO_DECODE...]}. Writes a few records (one chunked, one
 * upserted report) to {@code DIR/.kvp_pool_1} (a new temporary directory by default, never {@code
 * /var/lib/hyperv}), reads them back, then decodes any other pool files named.
 */
public final class SmokeRun {
  private SmokeRun() {}

  public static void main(String[] args) throws IOException {
    if (args.length > 0 && (args[0].equals("-h") || args[0].equals("--help"))) {
      System.out.println(
          """
          Usage: bin/kvp-smoke [DIR] [POOL_FILE...]

          Writes sample records to DIR/.kvp_pool_1 (default: a new temporary directory), reads them
          back and prints them; then decodes each POOL_FILE given.

          Examples:
            bin/kvp-smoke
            bin/kvp-smoke /tmp/kvp /var/lib/hyperv/.kvp_pool_1""");
      return;
    }
    Path dir = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("kvp-smoke");
    BootClock clock = BootClock.system();
    VmId vmId = VmId.system();
    System.out.printf(
        "boot time %s, boot id %s, %.3f s since boot%nvm id %s (%s)%nnative flock: %s%n%n",
        clock.bootTime(),
        clock.bootId(),
        clock.sinceBoot().toNanos() / 1e9,
        vmId.value(),
        vmId.source(),
        PoolFile.flockAvailable() ? "yes" : "no (fcntl lock only)");

    PoolFile pool = PoolFile.builder().directory(dir).archive(dir.resolve("archive"), 5).build();
    StaleClearResult cleared = pool.clearIfStale(clock.bootTime());
    System.out.println(
        "stale check: "
            + cleared.outcome()
            + cleared.archive().map(p -> ", archived to " + p).orElse(""));

    String prefix = "kvp-smoke|" + vmId.value() + "|INFO|";
    List<KvpRecord> batch = new ArrayList<>();
    batch.add(new KvpRecord(prefix + "hello", "written at " + clock.sinceBoot() + " since boot"));
    String longValue = "Ünïcödé and 😀 survive chunking intact. ".repeat(60);
    List<String> chunks = ValueChunker.split(longValue, KvpLimits.HOST_SAFE);
    for (int i = 0; i < chunks.size(); i++) {
      batch.add(new KvpRecord(prefix + "long|" + i, chunks.get(i)));
    }
    pool.append(batch);
    pool.upsert(new KvpRecord("PROVISIONING_REPORT", "result=success|agent=kvp-smoke"));
    pool.upsert(new KvpRecord("PROVISIONING_REPORT", "result=success|agent=kvp-smoke|run=2"));

    print(pool.path(), pool.read());
    StringBuilder joined = new StringBuilder();
    pool.read().entries().stream()
        .filter(e -> e.key().startsWith(prefix + "long|"))
        .forEach(e -> joined.append(e.value()));
    System.out.println(
        "chunked value: "
            + chunks.size()
            + " records, reassembled "
            + (joined.toString().equals(longValue) ? "exactly" : "WRONG"));

    for (int i = 1; i < args.length; i++) {
      Path file = Path.of(args[i]);
      print(file, PoolFile.builder().file(file).build().read());
    }
  }

  private static void print(Path file, PoolSnapshot snapshot) {
    System.out.printf(
        "%n%s: %d records, %d problems%n",
        file, snapshot.entries().size(), snapshot.problems().size());
    for (PoolEntry entry : snapshot.entries()) {
      String value = entry.value().replace("\n", "\\n");
      System.out.printf(
          "  [%3d] %s = %s%n",
          entry.index(),
          entry.key(),
          value.length() > 90
              ? value.substring(0, 90) + "… (" + value.length() + " chars)"
              : value);
    }
    for (KvpProblem problem : snapshot.problems()) {
      System.out.println("  problem: " + problem);
    }
  }
}
