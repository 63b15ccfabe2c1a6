package dev.kvprov.otel;

import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.PoolLockTimeoutException;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The waiting for pool locks that one telemetry may do in all: the pool's lock timeout for the
 * whole boot, not per record. Every pool operation may wait for what is left of it; the time an
 * operation spent held up (it timed out, or took longer than {@link #UNHINDERED}) is taken off.
 * Once it is spent, operations only try. A held pool then costs a boot its lock timeout once, and
 * the end of the run one more ({@link #grantOnce}), for the records that waited and the report.
 */
final class LockWaits {
  /** Longer than an unhindered write takes, even with an fsync: time past it was spent waiting. */
  static final Duration UNHINDERED = Duration.ofMillis(100);

  private final Duration perOperation;
  private final AtomicLong leftNanos;
  private boolean granted;

  LockWaits(Duration budget) {
    this.perOperation = budget;
    this.leftNanos = new AtomicLong(budget.toNanos());
  }

  interface PoolWork<T> {
    T run(PoolFile pool) throws IOException;
  }

  /** Runs {@code work} on {@code pool} with the lock wait that is left, and takes what it used. */
  <T> T run(PoolFile pool, PoolWork<T> work) throws IOException {
    long wait = Math.min(leftNanos.get(), perOperation.toNanos());
    long started = System.nanoTime();
    boolean held = false;
    try {
      return work.run(pool.withLockTimeout(Duration.ofNanos(Math.max(0, wait))));
    } catch (PoolLockTimeoutException e) {
      held = true;
      throw e;
    } finally {
      long took = System.nanoTime() - started;
      if (held || took > UNHINDERED.toNanos()) {
        leftNanos.accumulateAndGet(took, (left, spent) -> Math.max(0, left - spent));
      }
    }
  }

  /**
   * Adds the per-operation wait once more, the first time it is asked for (at the end of a run).
   */
  synchronized void grantOnce() {
    if (!granted) {
      granted = true;
      leftNanos.accumulateAndGet(perOperation.toNanos(), Math::max);
    }
  }
}
