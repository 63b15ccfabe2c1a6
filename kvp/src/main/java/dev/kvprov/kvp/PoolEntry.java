package dev.kvprov.kvp;

import static java.util.Objects.requireNonNull;

/**
 * A decoded record and where it stands in its pool.
 *
 * @param index the record's position, 0 for the first record of the file
 * @param offset the byte offset of the record, always {@code index * 2560}
 * @param record the key and value, each taken up to its first NUL byte
 * @param intact false when a {@link KvpProblem} was reported for this record
 */
public record PoolEntry(int index, long offset, KvpRecord record, boolean intact) {
  public PoolEntry {
    requireNonNull(record, "record");
  }

  public String key() {
    return record.key();
  }

  public String value() {
    return record.value();
  }
}
