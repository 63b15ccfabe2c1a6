package dev.kvprov.kvp;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;

/**
 * The on-disk form of a KVP record: a 512-byte key field then a 2048-byte value field, each UTF-8
 * and padded with NUL bytes.
 *
 * <p>Encoding is strict: a string that would not come back unchanged (a NUL inside it, an unpaired
 * surrogate, more bytes than the profile allows) is rejected, never truncated. Decoding is
 * tolerant: damage is reported as a {@link KvpProblem} with its offset and the rest is still
 * decoded.
 */
public final class RecordCodec {
  /** Size of the key field in bytes. */
  public static final int KEY_SIZE = 512;

  /** Size of the value field in bytes. */
  public static final int VALUE_SIZE = 2048;

  /** Size of one record in bytes. A pool file is a flat array of records. */
  public static final int RECORD_SIZE = KEY_SIZE + VALUE_SIZE;

  private RecordCodec() {}

  /**
   * Encodes one record into its 2560 bytes.
   *
   * @throws IllegalArgumentException if the key is empty, or the key or value does not fit {@code
   *     limits}, contains a NUL character, or contains an unpaired surrogate
   */
  public static byte[] encode(KvpRecord record, KvpLimits limits) {
    byte[] out = new byte[RECORD_SIZE];
    encodeInto(record, limits, out, 0);
    return out;
  }

  /** Encodes into {@code dst[offset .. offset+2560)}, which must be zero-filled. */
  static void encodeInto(KvpRecord record, KvpLimits limits, byte[] dst, int offset) {
    requireNonNull(record, "record");
    requireNonNull(limits, "limits");
    byte[] key = utf8(record.key(), "key", limits.maxKeyBytes(), limits);
    byte[] value = utf8(record.value(), "value", limits.maxValueBytes(), limits);
    System.arraycopy(key, 0, dst, offset, key.length);
    System.arraycopy(value, 0, dst, offset + KEY_SIZE, value.length);
  }

  /** The key's bytes as they stand in the key field, validated against {@code limits}. */
  static byte[] keyBytes(String key, KvpLimits limits) {
    return utf8(key, "key", limits.maxKeyBytes(), limits);
  }

  private static byte[] utf8(String s, String field, int maxBytes, KvpLimits limits) {
    if (s.isEmpty() && field.equals("key")) {
      // An empty key is what a zeroed slot decodes to; readers report it as damage.
      throw new IllegalArgumentException("key is empty");
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == 0) {
        throw new IllegalArgumentException(
            field
                + " contains a NUL character at index "
                + i
                + "; a KVP field ends at its first NUL");
      }
      if (Character.isSurrogate(c)) {
        boolean paired =
            Character.isHighSurrogate(c)
                && i + 1 < s.length()
                && Character.isLowSurrogate(s.charAt(i + 1));
        if (!paired) {
          throw new IllegalArgumentException(
              field + " contains an unpaired surrogate at index " + i + "; it has no UTF-8 form");
        }
        i++;
      }
    }
    byte[] bytes = s.getBytes(UTF_8);
    if (bytes.length > maxBytes) {
      throw new IllegalArgumentException(
          field
              + " is "
              + bytes.length
              + " bytes of UTF-8; the "
              + limits.label()
              + " limit is "
              + maxBytes
              + " bytes"
              + (field.equals("value") ? " (split long values with ValueChunker)" : ""));
    }
    return bytes;
  }

  /**
   * Streams the records of a pool read from {@code in} (a pipe, an export) to {@code visitor}, in
   * constant memory, with the same tolerance as {@link #decode}. No lock is taken.
   */
  public static void scan(java.io.InputStream in, PoolVisitor visitor) throws IOException {
    requireNonNull(in, "in");
    requireNonNull(visitor, "visitor");
    new PoolScanner().scan(Channels.newChannel(in), visitor);
  }

  /**
   * Streams a pool file's records to {@code visitor}, like {@link #scan(java.io.InputStream,
   * PoolVisitor)}; a record cut short in the middle of the file (a writer died, others appended
   * after it) is passed over with a problem, so the records after it are read whole.
   */
  public static void scan(java.nio.channels.FileChannel file, PoolVisitor visitor)
      throws IOException {
    requireNonNull(file, "file");
    requireNonNull(visitor, "visitor");
    new PoolScanner().scan(file, visitor, TornRecord.inTheMiddle(file));
  }

  /**
   * Decodes a whole pool held in memory: every complete record, and a problem for each damaged
   * field, for a record cut short in the middle (passed over) and for a trailing partial record.
   */
  public static PoolSnapshot decode(byte[] pool) {
    requireNonNull(pool, "pool");
    PoolSnapshot.Collector collector = new PoolSnapshot.Collector();
    try {
      new PoolScanner()
          .scan(
              Channels.newChannel(new ByteArrayInputStream(pool)),
              collector,
              TornRecord.find(pool).filter(t -> t.offset() + t.length() < pool.length));
    } catch (IOException e) {
      throw new UncheckedIOException("reading a byte array cannot fail", e);
    }
    return collector.snapshot();
  }
}
