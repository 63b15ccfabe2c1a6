package dev.kvprov.kvp;

import static java.util.Objects.requireNonNull;

/**
 * Something wrong in a pool file, found while decoding it, with the byte offset where it is.
 *
 * <p>A problem never stops decoding: the records before and after it are still returned.
 *
 * @param offset byte offset in the pool file (or buffer) of the first offending byte
 * @param recordIndex index of the 2560-byte record slot the offset falls in
 * @param kind what is wrong
 * @param detail a sentence for a person, naming the field and what was found
 */
public record KvpProblem(long offset, int recordIndex, Kind kind, String detail) {

  /** The kinds of damage a decoder can meet. */
  public enum Kind {
    /** The key field has no NUL byte: all 512 bytes were taken as the key. */
    KEY_NOT_TERMINATED,
    /** The value field has no NUL byte: all 2048 bytes were taken as the value. */
    VALUE_NOT_TERMINATED,
    /** The key is not valid UTF-8; the decoded key shows U+FFFD where bytes were invalid. */
    KEY_INVALID_UTF8,
    /** The value is not valid UTF-8; the decoded value shows U+FFFD where bytes were invalid. */
    VALUE_INVALID_UTF8,
    /** The key is empty: a zeroed or overwritten slot rather than a record anyone wrote. */
    EMPTY_KEY,
    /** The file ends with fewer than 2560 bytes: a torn write. Readers ignore these bytes. */
    TRAILING_PARTIAL_RECORD,
    /**
     * Part of a record, cut short by a writer that died, with whole records written after it: its
     * bytes are passed over so that those records are read on their own grid.
     */
    TORN_RECORD,
    /**
     * An item of a host-side export (CIM-XML) could not be read; {@code offset} is the character
     * offset of the item in the export.
     */
    EXPORT_ITEM_INVALID
  }

  public KvpProblem {
    requireNonNull(kind, "kind");
    requireNonNull(detail, "detail");
  }

  @Override
  public String toString() {
    return "offset " + offset + " (record " + recordIndex + "): " + kind + ": " + detail;
  }
}
