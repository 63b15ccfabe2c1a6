package dev.kvprov.bench;

import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import java.nio.file.Path;
import java.util.List;

/**
 * What a pool lock's native binding costs a fresh JVM, apart from everything else a run does: the
 * pool store made first (no lock), then the binding ({@link PoolFile#flockAvailable()} loads it),
 * then one locked append. Prints both in milliseconds and whether flock was taken.
 * bench/lock-start.sh runs it with each kvp jar given, first on the class path, so that their
 * bindings can be compared.
 *
 * <p>Usage: {@code LockStart POOL} (POOL is written to; name it {@code .kvp_pool_1}).
 */
public final class LockStart {
  private LockStart() {}

  public static void main(String[] args) throws Exception {
    PoolFile pool = PoolFile.builder().file(Path.of(args[0])).build();
    long start = System.nanoTime();
    boolean flock = PoolFile.flockAvailable();
    long bound = System.nanoTime();
    pool.append(List.of(new KvpRecord("lock-start", "1")));
    long appended = System.nanoTime();
    System.out.printf(
        "%.1f %.1f flock=%b%n", (bound - start) / 1e6, (appended - bound) / 1e6, flock);
  }
}
