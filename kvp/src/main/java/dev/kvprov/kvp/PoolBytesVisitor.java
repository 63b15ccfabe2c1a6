package dev.kvprov.kvp;

import java.nio.ByteBuffer;

/**
 * A {@link PoolVisitor} that takes a pool file's records as their stored bytes: the scanner then
 * decodes no text, for readers that copy the bytes out as they are (a dump of a big pool). Problems
 * are found and delivered as for any visitor, before the record they concern. Sources that only
 * have text (a host-side export) still call {@link #entry(PoolEntry)}.
 */
public interface PoolBytesVisitor extends PoolVisitor {
  /**
   * One record, as stored. {@code key} and {@code value} are read-only views over the scanner's
   * buffer, valid only during the call: each field from its buffer's position (not 0) to its limit,
   * up to its first NUL byte (or the whole field when it has none), so not necessarily valid UTF-8.
   *
   * @param intact false when a {@link KvpProblem} was reported for this record
   */
  void entry(int index, long offset, ByteBuffer key, ByteBuffer value, boolean intact);
}
