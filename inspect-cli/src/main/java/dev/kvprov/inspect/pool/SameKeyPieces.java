package dev.kvprov.inspect.pool;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvprov.inspect.writers.Item;
import dev.kvprov.inspect.writers.Writer;
import dev.kvprov.inspect.writers.Writers;
import dev.kvprov.kvp.KvpLimits;
import dev.kvprov.kvp.KvpProblem;
import dev.kvprov.kvp.PoolEntry;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.util.ArrayList;
import java.util.List;

/**
 * One value of a writer whose pieces share one key ({@link RecordRule#piecesShareKey()},
 * azure-init's records), put back together. Such a writer cuts a long value into 1022-byte pieces
 * on byte boundaries, so a UTF-8 character can straddle two pieces, and every piece repeats the
 * same key (a new uuid per value keeps different values apart). The pieces are joined as bytes and
 * decoded once; the invalid UTF-8 each piece showed on its own was only the cut and is not reported
 * when the joined value decodes.
 */
final class SameKeyPieces {
  private final Writer writer;
  private final String key;
  private final int first;
  private final List<Integer> records = new ArrayList<>();
  private final List<KvpProblem> problems = new ArrayList<>();
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private int lastPieceBytes;

  SameKeyPieces(
      Writer writer, PoolEntry entry, ByteBuffer valueBytes, List<KvpProblem> recordProblems) {
    this.writer = writer;
    this.key = entry.key();
    this.first = entry.index();
    add(entry, valueBytes, recordProblems);
  }

  /**
   * Takes the record if it is the next piece: the same key right after a full piece. Returns false
   * when it is not, and the value is complete.
   */
  boolean take(PoolEntry entry, ByteBuffer valueBytes, List<KvpProblem> recordProblems) {
    if (!entry.key().equals(key) || lastPieceBytes < KvpLimits.HOST_SAFE.maxValueBytes()) {
      return false;
    }
    add(entry, valueBytes, recordProblems);
    return true;
  }

  private void add(PoolEntry entry, ByteBuffer valueBytes, List<KvpProblem> recordProblems) {
    records.add(entry.index());
    problems.addAll(recordProblems);
    lastPieceBytes = valueBytes.remaining();
    byte[] piece = new byte[valueBytes.remaining()];
    valueBytes.duplicate().get(piece);
    bytes.writeBytes(piece);
  }

  int first() {
    return first;
  }

  Item item() {
    byte[] joined = bytes.toByteArray();
    String value;
    List<KvpProblem> kept = problems;
    try {
      value =
          UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(joined))
              .toString();
      kept = problems.stream().filter(p -> p.kind() != KvpProblem.Kind.VALUE_INVALID_UTF8).toList();
    } catch (CharacterCodingException e) {
      value = new String(joined, UTF_8);
    }
    return new Item(
        first,
        records,
        key,
        Writers.AZURE_INIT,
        value,
        kept.stream().map(KvpProblem::toString).toList());
  }
}
