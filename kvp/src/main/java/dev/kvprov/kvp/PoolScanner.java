package dev.kvprov.kvp;

import static dev.kvprov.kvp.RecordCodec.KEY_SIZE;
import static dev.kvprov.kvp.RecordCodec.RECORD_SIZE;
import static dev.kvprov.kvp.RecordCodec.VALUE_SIZE;
import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.util.Optional;

/**
 * Streams records out of a channel through a fixed buffer, so memory stays flat for any pool size.
 * Not thread-safe: one scanner per scan.
 */
final class PoolScanner {
  /** 256 records (640 KiB) per read: large reads for speed, small enough to stay in cache. */
  static final int RECORDS_PER_READ = 256;

  private final byte[] buffer = new byte[RECORDS_PER_READ * RECORD_SIZE];

  /** The value bytes handed to the visitor, one view moved record to record (valid per call). */
  private final ByteBuffer valueView = ByteBuffer.wrap(buffer).asReadOnlyBuffer();

  /** The key bytes handed to a {@link PoolBytesVisitor}, as {@link #valueView}. */
  private final ByteBuffer keyView = ByteBuffer.wrap(buffer).asReadOnlyBuffer();

  private final CharsetDecoder strict =
      UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT);

  /** Problems reported so far, to mark the entry of a damaged record as not intact. */
  private int problems;

  /** Scans from the channel's position to its end. Returns the number of bytes read. */
  long scan(ReadableByteChannel channel, PoolVisitor visitor) throws IOException {
    return scan(channel, visitor, Optional.empty());
  }

  /**
   * Scans from the channel's position (offset 0) to its end, passing over {@code torn} (a record
   * cut short in the middle of the file) with a problem, so the records after it are read whole.
   */
  long scan(ReadableByteChannel channel, PoolVisitor visitor, Optional<TornRecord> torn)
      throws IOException {
    long skipAt = torn.filter(t -> t.length() > 0).map(TornRecord::offset).orElse(-1L);
    int skip = torn.map(TornRecord::length).orElse(0);
    long base = 0;
    int index = 0;
    int filled = 0;
    while (true) {
      int n = channel.read(ByteBuffer.wrap(buffer, filled, buffer.length - filled));
      if (n > 0) {
        filled += n;
        if (filled < buffer.length) {
          continue;
        }
      }
      int pos = 0;
      while (true) {
        if (base == skipAt && filled - pos >= skip) {
          report(
              visitor,
              new KvpProblem(
                  base,
                  index,
                  KvpProblem.Kind.TORN_RECORD,
                  "a record cut short ("
                      + skip
                      + " bytes, a writer died mid-write); the records after it are read from"
                      + " offset "
                      + (base + skip)));
          pos += skip;
          base += skip;
          skipAt = -1;
          continue;
        }
        if (filled - pos < RECORD_SIZE || base == skipAt) {
          break;
        }
        decodeRecord(pos, index, base, visitor);
        index++;
        pos += RECORD_SIZE;
        base += RECORD_SIZE;
      }
      int rest = filled - pos;
      if (n < 0) {
        if (rest > 0) {
          visitor.problem(
              new KvpProblem(
                  base,
                  index,
                  KvpProblem.Kind.TRAILING_PARTIAL_RECORD,
                  "the file ends with "
                      + rest
                      + " bytes that do not make a whole "
                      + RECORD_SIZE
                      + "-byte record"));
        }
        return base + rest;
      }
      System.arraycopy(buffer, pos, buffer, 0, rest);
      filled = rest;
    }
  }

  private void decodeRecord(int at, int index, long fileOffset, PoolVisitor visitor) {
    int problemsBefore = problems;
    int valueStart = at + KEY_SIZE;
    if (visitor instanceof PoolBytesVisitor bytes) {
      // No strings made: the visitor copies out what it needs, the NUL padding never.
      int keyEnd = field(buffer, at, KEY_SIZE, index, fileOffset, true, visitor);
      int valueEnd =
          field(buffer, valueStart, VALUE_SIZE, index, fileOffset + KEY_SIZE, false, visitor);
      if (keyEnd == at) {
        reportEmptyKey(visitor, index, fileOffset);
      }
      bytes.entry(
          index,
          fileOffset,
          keyView.clear().position(at).limit(keyEnd),
          valueView.clear().position(valueStart).limit(valueEnd),
          problems == problemsBefore);
      return;
    }
    int keyEnd = field(buffer, at, KEY_SIZE, index, fileOffset, true, visitor);
    String key = new String(buffer, at, keyEnd - at, UTF_8);
    int valueEnd =
        field(buffer, valueStart, VALUE_SIZE, index, fileOffset + KEY_SIZE, false, visitor);
    String value = new String(buffer, valueStart, valueEnd - valueStart, UTF_8);
    if (key.isEmpty()) {
      reportEmptyKey(visitor, index, fileOffset);
    }
    visitor.entry(
        new PoolEntry(index, fileOffset, new KvpRecord(key, value), problems == problemsBefore),
        valueView.clear().position(valueStart).limit(valueEnd));
  }

  private void reportEmptyKey(PoolVisitor visitor, int index, long fileOffset) {
    report(
        visitor,
        new KvpProblem(fileOffset, index, KvpProblem.Kind.EMPTY_KEY, "the record's key is empty"));
  }

  private void report(PoolVisitor visitor, KvpProblem problem) {
    problems++;
    visitor.problem(problem);
  }

  /** Checks one field, reporting its damage; returns where it ends (its NUL, or the slot's end). */
  private int field(
      byte[] buf,
      int start,
      int size,
      int index,
      long fieldOffset,
      boolean isKey,
      PoolVisitor visitor) {
    int limit = start + size;
    int end = start;
    boolean ascii = true;
    while (end < limit) {
      byte b = buf[end];
      if (b == 0) {
        break;
      }
      if (b < 0) {
        ascii = false;
      }
      end++;
    }
    String name = isKey ? "key" : "value";
    if (end == limit) {
      report(
          visitor,
          new KvpProblem(
              fieldOffset,
              index,
              isKey ? KvpProblem.Kind.KEY_NOT_TERMINATED : KvpProblem.Kind.VALUE_NOT_TERMINATED,
              "the " + name + " field has no NUL byte; all " + size + " bytes were taken"));
    }
    int length = end - start;
    if (!ascii) {
      int bad = firstInvalidUtf8(buf, start, length);
      if (bad >= 0) {
        report(
            visitor,
            new KvpProblem(
                fieldOffset + (bad - start),
                index,
                isKey ? KvpProblem.Kind.KEY_INVALID_UTF8 : KvpProblem.Kind.VALUE_INVALID_UTF8,
                String.format(
                    "the %s is not valid UTF-8 from byte 0x%02x at its byte %d; shown with U+FFFD",
                    name, buf[bad] & 0xff, bad - start)));
      }
    }
    return end;
  }

  /** The array index of the first byte that is not valid UTF-8, or -1. */
  private int firstInvalidUtf8(byte[] buf, int start, int length) {
    ByteBuffer in = ByteBuffer.wrap(buf, start, length);
    CharBuffer out = CharBuffer.allocate(length);
    strict.reset();
    CoderResult result = strict.decode(in, out, true);
    if (!result.isError()) {
      result = strict.flush(out);
    }
    return result.isError() ? in.position() : -1;
  }
}
