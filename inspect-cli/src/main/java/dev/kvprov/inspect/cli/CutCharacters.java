package dev.kvprov.inspect.cli;

import dev.kvprov.inspect.text.Text;
import dev.kvprov.inspect.writers.Item;
import dev.kvprov.kvp.PoolEntry;
import dev.kvprov.kvp.RecordCodec;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Characters a writer cut between two records (azure-init's first format cuts a long value every
 * 1,022 bytes, inside a character if that is where the cut falls). A reader that joins the pieces
 * sees the character whole; the host does not: the guest's KVP driver converts each record to
 * UTF-16 on its own and drops the bytes that are not a whole character, so the character is lost
 * there. {@code doctor} says so, per cut, with what the host shows on either side.
 */
final class CutCharacters {
  /** How much of each side of a cut the finding shows, in bytes. */
  private static final int SHOWN = 24;

  /**
   * The bytes at the edges of one record's value, kept until its item is put together.
   *
   * @param valueOffset where the value starts in the file, or -1 (a host export)
   */
  private record Edges(long valueOffset, int length, byte[] head, byte[] tail) {}

  private final Map<Integer, Edges> edges = new HashMap<>();

  /** The most records waiting for their item: as many as {@code doctor} holds otherwise. */
  private final int limit;

  CutCharacters(int limit) {
    this.limit = limit;
  }

  /** Keeps the edges of a record whose value begins or ends inside a character. */
  void record(PoolEntry entry, ByteBuffer value) {
    int length = value.remaining();
    byte[] head = new byte[Math.min(SHOWN, length)];
    byte[] tail = new byte[head.length];
    value.duplicate().get(head);
    value.duplicate().position(value.position() + length - tail.length).get(tail);
    if (edges.size() >= limit || (leading(head) == 0 && trailing(tail) == 0)) {
      return;
    }
    edges.put(
        entry.index(),
        new Edges(
            entry.offset() < 0 ? -1 : entry.offset() + RecordCodec.KEY_SIZE, length, head, tail));
  }

  /**
   * The characters lost between the records of an item whose joined value is whole text; forgets
   * its records either way.
   */
  List<DoctorCommand.Finding> lost(String source, Item item, boolean whole) {
    List<DoctorCommand.Finding> found = new ArrayList<>();
    List<Integer> records = item.records();
    for (int i = 0; i < records.size(); i++) {
      Edges before = edges.remove(records.get(i));
      Edges after = i + 1 < records.size() ? edges.get(records.get(i + 1)) : null;
      if (!whole || before == null || after == null) {
        continue;
      }
      int cut = trailing(before.tail());
      int rest = leading(after.head());
      if (cut == 0 || rest == 0) {
        continue;
      }
      byte[] character = new byte[cut + rest];
      System.arraycopy(before.tail(), before.tail().length - cut, character, 0, cut);
      System.arraycopy(after.head(), 0, character, cut, rest);
      String lost = strict(character);
      if (lost == null) {
        continue; // not one character cut in two: the joined value would not have decoded
      }
      found.add(
          new DoctorCommand.Finding(
              source,
              "character_lost_by_host",
              records.get(i),
              before.valueOffset() < 0 ? -1 : before.valueOffset() + before.length() - cut,
              item.writer().name()
                  + ": \""
                  + Text.printable(lost)
                  + "\" is cut between records "
                  + records.get(i)
                  + " and "
                  + records.get(i + 1)
                  + "; the host converts each record to UTF-16 on its own and loses it: record "
                  + records.get(i)
                  + " ends \""
                  + (before.length() > SHOWN ? "…" : "")
                  + Text.printable(lenient(before.tail()))
                  + "\", record "
                  + records.get(i + 1)
                  + " begins \""
                  + Text.printable(lenient(after.head()))
                  + (after.length() > SHOWN ? "…" : "")
                  + "\""));
    }
    return found;
  }

  /** How many bytes at the end begin a character that does not end there. */
  private static int trailing(byte[] bytes) {
    for (int back = 1; back <= Math.min(3, bytes.length); back++) {
      int b = bytes[bytes.length - back] & 0xFF;
      if ((b & 0xC0) == 0x80) {
        continue; // a continuation byte: its lead is further back
      }
      int needs = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
      return needs > back ? back : 0;
    }
    return 0;
  }

  /** How many continuation bytes begin the value: the rest of a character begun elsewhere. */
  private static int leading(byte[] bytes) {
    int n = 0;
    while (n < Math.min(3, bytes.length) && (bytes[n] & 0xC0) == 0x80) {
      n++;
    }
    return n;
  }

  /** The bytes as text, or null when they are not whole UTF-8. */
  private static String strict(byte[] bytes) {
    try {
      return decoder(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  /** The bytes as the host shows them: what is not a whole character dropped. */
  private static String lenient(byte[] bytes) {
    try {
      return decoder(CodingErrorAction.IGNORE).decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      return ""; // IGNORE reports nothing
    }
  }

  private static CharsetDecoder decoder(CodingErrorAction action) {
    return StandardCharsets.UTF_8
        .newDecoder()
        .onMalformedInput(action)
        .onUnmappableCharacter(action);
  }
}
