package dev.kvprov.kvp;

import java.nio.ByteBuffer;

/**
 * Receives a pool's records in file order while it is scanned, so a pool of any size is read in
 * constant memory.
 *
 * <p>A problem is delivered before the entry of the record it concerns.
 */
public interface PoolVisitor {
  void entry(PoolEntry entry);

  /**
   * Like {@link #entry(PoolEntry)}, with the value's bytes as stored (up to its NUL): for readers
   * that rejoin values a writer cut between the bytes of one character, which the decoded string
   * can no longer give back. The buffer is read-only and valid only during the call: the scanner
   * moves one view over its read buffer from record to record, so the value starts at the buffer's
   * position (not at 0) and ends at its limit; read it with relative gets, on a {@code duplicate()}
   * to leave it as it was, and keep a copy of what is needed after the call.
   */
  default void entry(PoolEntry entry, ByteBuffer valueBytes) {
    entry(entry);
  }

  default void problem(KvpProblem problem) {}
}
