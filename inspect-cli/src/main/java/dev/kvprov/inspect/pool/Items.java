package dev.kvprov.inspect.pool;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvprov.inspect.writers.Item;
import dev.kvprov.inspect.writers.RecordRule;
import dev.kvprov.inspect.writers.Writer;
import dev.kvprov.inspect.writers.Writers;
import dev.kvprov.kvp.KvpProblem;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolEntry;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Turns a stream of pool records into logical {@link Item}s as they go by: kvprov's {@code |i/n}
 * pieces and cloud-init's {@code msg_i} chunks are held only until their group is complete, so a
 * pool of any size is read in near-constant memory.
 */
public final class Items implements SourceVisitor {

  /** Items in pool order, each still to be put together (on whichever thread asks). */
  private final Later sink;

  /**
   * Receives items in pool order, each put together when {@link Supplier#get} is called: once, on
   * any one thread (putting it together records its problems).
   */
  interface Later {
    void accept(Supplier<Item> item);
  }

  /**
   * Items are delivered in pool order (of their first record): one that is complete waits while a
   * group that started before it is still open, up to {@link #MAX_HELD} items; past that (a group
   * that never completes in a huge pool) they go out of order rather than fill memory.
   */
  private final java.util.PriorityQueue<Held> held =
      new java.util.PriorityQueue<>(java.util.Comparator.comparingInt(Held::index));

  /**
   * An item whose place is known, and whose value is put together only when it is asked for: a
   * writer's join (decompressing, re-encoding a split event) is most of what an item costs, and can
   * run on another thread ({@link InPoolOrder}).
   */
  private record Held(int index, Supplier<Item> item) {}

  public static final int MAX_HELD = 4096;
  private final Map<String, Group> open = new LinkedHashMap<>();
  private final List<KvpProblem> pending = new ArrayList<>();

  /** The value being put back together whose pieces repeat one key, one after another. */
  private SameKeyPieces sameKey;

  private static final class Group {
    final int first;
    final List<Integer> records = new ArrayList<>();
    final TreeMap<Integer, String> pieces = new TreeMap<>();
    final List<String> problems = new ArrayList<>();

    /** Pieces of an untold count: the longest so far, and the last one's number once seen. */
    int longest;

    int last = -1;
    final int expected;
    final Writer writer;

    Group(int first, int expected, Writer writer) {
      this.first = first;
      this.expected = expected;
      this.writer = writer;
    }
  }

  public Items(Consumer<Item> sink) {
    this.sink = item -> sink.accept(item.get());
  }

  private Items(Later sink) {
    this.sink = sink;
  }

  /** Items whose values are put together by whoever calls {@link Supplier#get}, in pool order. */
  static Items deferred(Later sink) {
    return new Items(sink);
  }

  @Override
  public void problem(KvpProblem problem) {
    if (problem.kind() == KvpProblem.Kind.EXPORT_ITEM_INVALID
        || problem.kind() == KvpProblem.Kind.TORN_RECORD) {
      // an export item that could not be read, or the bytes of a record cut short, have no entry
      // to carry them: each is an item of its own
      if (sameKey != null) {
        emitSameKey();
      }
      emitProblems(problem.recordIndex(), List.of(problem));
      return;
    }
    pending.add(problem);
  }

  /** Problems that belong to no record (a torn tail, an unreadable export item), as an item. */
  private void emitProblems(int index, List<KvpProblem> problems) {
    deliver(
        new Item(
            index,
            List.of(),
            "",
            Writers.OTHER,
            "",
            problems.stream().map(KvpProblem::toString).toList()));
  }

  @Override
  public void entry(PoolEntry entry) {
    entry(entry, ByteBuffer.wrap(entry.value().getBytes(UTF_8)));
  }

  @Override
  public void entry(PoolEntry entry, ByteBuffer valueBytes) {
    List<KvpProblem> recordProblems = List.copyOf(pending);
    pending.clear();
    KvpRecord record = entry.record();
    if (sameKey != null && !sameKey.take(entry, valueBytes, recordProblems)) {
      emitSameKey();
    }
    Writer writer = Writers.of(record.key());
    if (sameKey == null && writer.rule().piecesShareKey()) {
      sameKey = new SameKeyPieces(writer, entry, valueBytes, recordProblems);
      return;
    }
    if (sameKey != null) {
      return;
    }
    List<String> problems = new ArrayList<>(recordProblems.size());
    for (KvpProblem problem : recordProblems) {
      problems.add(problem.toString());
    }
    String key = record.key();
    RecordRule.Piece piece = writer.rule().piece(key, record.value(), problems);
    closeUntoldGroupsOf(writer, piece == null ? key : piece.base());
    if (piece != null) {
      collect(piece.base(), entry, piece.index(), piece.count(), record.value(), writer, problems);
      return;
    }
    deliver(new Item(entry.index(), List.of(entry.index()), key, writer, record.value(), problems));
  }

  private void collect(
      String base,
      PoolEntry entry,
      int piece,
      int expected,
      String value,
      Writer writer,
      List<String> problems) {
    Group group = open.computeIfAbsent(base, b -> new Group(entry.index(), expected, writer));
    group.records.add(entry.index());
    group.problems.addAll(problems);
    if (expected > 0 && (expected != group.expected || piece >= expected)) {
      group.problems.add(
          "record "
              + entry.index()
              + " says piece "
              + piece
              + "/"
              + expected
              + ", which does not fit "
              + group.expected
              + " pieces: left out");
      return;
    }
    if (group.pieces.put(piece, value) != null) {
      group.problems.add("record " + entry.index() + " repeats piece " + piece);
    }
    if (expected < 0) {
      // The writer does not say how many pieces there are: they are all as long but the last,
      // which holds the rest and is shorter.
      if (writer.rule().lastOfUntold(value, group.longest)) {
        group.last = piece;
      }
      group.longest = Math.max(group.longest, value.length());
    }
    if ((group.expected > 0 && group.pieces.size() == group.expected)
        || (group.last >= 0 && group.pieces.size() == group.last + 1)) {
      open.remove(base);
      emit(base, group);
    }
  }

  private void deliver(Item item) {
    deliver(item.index(), () -> item);
  }

  private void deliver(int index, Supplier<Item> item) {
    held.add(new Held(index, item));
    int oldestOpen = Integer.MAX_VALUE;
    for (Group g : open.values()) {
      oldestOpen = Math.min(oldestOpen, g.first);
    }
    if (sameKey != null) {
      oldestOpen = Math.min(oldestOpen, sameKey.first());
    }
    while (!held.isEmpty() && (held.peek().index() < oldestOpen || held.size() > MAX_HELD)) {
      sink.accept(held.poll().item());
    }
  }

  /**
   * A writer that does not say how many pieces a value has writes them one after another: another
   * value of the same writer means its open ones are complete (their last piece may have been as
   * long as the others).
   */
  private void closeUntoldGroupsOf(Writer writer, String base) {
    for (var it = open.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, Group> e = it.next();
      if (e.getValue().expected < 0 && e.getValue().writer == writer && !e.getKey().equals(base)) {
        it.remove();
        emit(e.getKey(), e.getValue());
      }
    }
  }

  private void emitSameKey() {
    SameKeyPieces done = sameKey;
    deliver(done.first(), done::item);
    sameKey = null;
  }

  /** Emits what is still open at the end of the pool: cloud-init groups, and incomplete ones. */
  @Override
  public void finish() {
    if (sameKey != null) {
      emitSameKey();
    }
    for (Map.Entry<String, Group> e : open.entrySet()) {
      emit(e.getKey(), e.getValue());
    }
    open.clear();
    if (!pending.isEmpty()) {
      emitProblems(pending.get(0).recordIndex(), List.copyOf(pending));
      pending.clear();
    }
    while (!held.isEmpty()) {
      sink.accept(held.poll().item());
    }
  }

  /** A group no longer open: only its reader touches it from here on, on any one thread. */
  private void emit(String base, Group group) {
    deliver(
        group.first,
        () -> {
          String value =
              group.writer.rule().join(base, group.pieces, group.expected, group.problems);
          return new Item(group.first, group.records, base, group.writer, value, group.problems);
        });
  }
}
