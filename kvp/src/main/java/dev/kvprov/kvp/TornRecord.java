package dev.kvprov.kvp;

import static dev.kvprov.kvp.RecordCodec.KEY_SIZE;
import static dev.kvprov.kvp.RecordCodec.RECORD_SIZE;
import static dev.kvprov.kvp.RecordCodec.VALUE_SIZE;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Optional;

/**
 * Where the bytes of a record cut short lie in a pool whose size is not a whole number of records.
 *
 * <p>A writer that dies mid-write leaves part of a record. If nobody writes after it, that part is
 * the file's tail. If others append after it (cloud-init does not check), it sits in the middle and
 * every later record is off the 2,560-byte grid: read on the grid, they are all garbage. So the
 * part is looked for: the first place on the grid after which the slots shifted by the part's
 * length are well-formed again. When no such place is found, the part is the tail. The slots before
 * it need not be well-formed: a whole record with garbage after a NUL (Microsoft's old {@code
 * kvp_client} leaves some) is no reason to lose the records after the part.
 *
 * <p>The first such place, not the place of the first slot that is not well-formed: the part and
 * the start of the record after it can read as one well-formed slot (a part that ends inside a
 * value of 1,536 bytes or more, followed by a key short enough to end with a NUL before the slot
 * does; or any part followed by a record with an empty value, as azure-init's DIAG starts are).
 * Cutting after that slot would keep it as a junk record and cut away part of the next. A record
 * read off the grid is never well-formed (the NUL that ends a record and the key that starts the
 * next fall in one field), except when the part is exactly 2,048 bytes and a value is empty, so the
 * first place whose shifted slots are all well-formed is where the part begins. The one layout no
 * rule can tell apart (docs/kvp-format.md, "A torn record") is resolved the same way.
 *
 * @param offset where the part begins
 * @param length its length, the file's size modulo 2,560
 */
record TornRecord(long offset, int length) {
  /** How many shifted slots must be well-formed to accept a place in the middle. */
  private static final int CONFIRMING_SLOTS = 8;

  /** Reads the slot at a file offset into a buffer (up to its end, less at the file's end). */
  interface Slots {
    void read(long at, ByteBuffer into) throws IOException;
  }

  /** The part in {@code channel}'s file, if its size is not a whole number of records. */
  static Optional<TornRecord> find(FileChannel channel) throws IOException {
    return find(
        channel.size(),
        (at, into) -> {
          while (into.hasRemaining() && channel.read(into, at + into.position()) >= 0) {
            // positional reads leave the channel's position where it was
          }
        });
  }

  /** The part in a pool held in memory. */
  static Optional<TornRecord> find(byte[] pool) {
    try {
      return find(
          pool.length,
          (at, into) ->
              into.put(pool, (int) at, (int) Math.min(into.remaining(), pool.length - at)));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("reading a byte array cannot fail", e);
    }
  }

  /** {@link #find}, only when the part lies in the middle of the file (whole records after it). */
  static Optional<TornRecord> inTheMiddle(FileChannel channel) throws IOException {
    long size = channel.size();
    return find(channel).filter(t -> t.offset() + t.length() < size);
  }

  static Optional<TornRecord> find(long size, Slots slots) throws IOException {
    int length = (int) (size % RECORD_SIZE);
    if (length == 0) {
      return Optional.empty();
    }
    long tail = size - length;
    ByteBuffer slot = ByteBuffer.allocate(RECORD_SIZE);
    for (long at = 0; at < tail; at += RECORD_SIZE) {
      if (confirmed(slots, slot, at + length, size)) {
        return Optional.of(new TornRecord(at, length));
      }
    }
    return Optional.of(new TornRecord(tail, length));
  }

  private static boolean confirmed(Slots slots, ByteBuffer slot, long from, long size)
      throws IOException {
    int checked = 0;
    for (long at = from;
        at + RECORD_SIZE <= size && checked < CONFIRMING_SLOTS;
        at += RECORD_SIZE) {
      if (!wellFormed(read(slots, slot, at))) {
        return false;
      }
      checked++;
    }
    return checked > 0;
  }

  private static byte[] read(Slots slots, ByteBuffer slot, long at) throws IOException {
    slot.clear();
    slots.read(at, slot);
    java.util.Arrays.fill(slot.array(), slot.position(), RECORD_SIZE, (byte) 0);
    return slot.array();
  }

  /**
   * A slot as every writer leaves it: a key of at least one byte, then NULs to the end of its
   * field; a value, then NULs to the end of its field.
   */
  static boolean wellFormed(byte[] slot) {
    return field(slot, 0, KEY_SIZE) > 0 && field(slot, KEY_SIZE, VALUE_SIZE) >= 0;
  }

  /** The field's length if it ends in NULs only, else -1. */
  private static int field(byte[] slot, int start, int size) {
    int end = start;
    while (end < start + size && slot[end] != 0) {
      end++;
    }
    if (end == start + size) {
      return -1;
    }
    for (int i = end; i < start + size; i++) {
      if (slot[i] != 0) {
        return -1;
      }
    }
    return end - start;
  }
}
