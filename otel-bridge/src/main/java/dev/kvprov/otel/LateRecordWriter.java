package dev.kvprov.otel;

import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import java.io.IOException;
import java.util.List;

/**
 * Takes over what a pool lock held elsewhere kept out of the pool to the end of a run, so that the
 * run can end (and logins begin) without losing it: the records that waited, and the {@code
 * PROVISIONING_REPORT}, the one record the platform reads. Set with {@link
 * KvpTelemetry.Builder#lateRecordWriter}; without one, they are lost and stderr says so.
 */
@FunctionalInterface
public interface LateRecordWriter {
  /**
   * Starts delivering the records; it must not wait for the lock itself.
   *
   * @param pool the pool that stayed locked
   * @param appends records to append, in this order
   * @param upserts records that replace any record with the same key (the report, the count of
   *     dropped records)
   * @return who delivers them and within how long, in words, for the line on stderr
   * @throws IOException if nobody could take them over (they are then reported lost)
   */
  String takeOver(PoolFile pool, List<KvpRecord> appends, List<KvpRecord> upserts)
      throws IOException;
}
