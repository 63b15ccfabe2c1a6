package dev.kvprov.kvp;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/** A pool's locks could not be taken within the configured wait: another writer holds them. */
public final class PoolLockTimeoutException extends IOException {
  private static final long serialVersionUID = 1L;

  private final Path pool;
  private final Duration waited;

  PoolLockTimeoutException(Path pool, Duration waited, String holder) {
    super(
        "timed out after "
            + waited.toMillis()
            + " ms waiting for the lock on "
            + pool
            + ": "
            + holder);
    this.pool = pool;
    this.waited = waited;
  }

  public Path pool() {
    return pool;
  }

  public Duration waited() {
    return waited;
  }
}
