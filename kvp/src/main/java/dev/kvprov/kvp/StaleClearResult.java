package dev.kvprov.kvp;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.Optional;

/**
 * What {@link PoolFile#clearIfStale} found and did.
 *
 * @param outcome whether the pool was cleared
 * @param recordsCleared how many whole records the cleared pool held (0 unless cleared)
 * @param archive where the cleared pool was copied first, when an archive is configured and the
 *     pool was not empty
 * @param notArchived why the cleared pool has no copy although an archive is configured (it could
 *     not be written)
 */
public record StaleClearResult(
    Outcome outcome, long recordsCleared, Optional<Path> archive, Optional<String> notArchived) {

  /** What the pool looked like under the lock. */
  public enum Outcome {
    /** No pool file: nothing to clear. */
    ABSENT,
    /** Written since this boot began: left as it is. */
    FRESH,
    /** Last written before this boot: archived if configured, then emptied. */
    CLEARED
  }

  public StaleClearResult {
    requireNonNull(outcome, "outcome");
    requireNonNull(archive, "archive");
    requireNonNull(notArchived, "notArchived");
  }
}
