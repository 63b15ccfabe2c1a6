package dev.kvprov.inspect;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvprov.kvp.KvpProblem;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolEntry;
import dev.kvprov.otel.KvpRecordFormat;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Turns a stream of pool records into logical {@link Item}s as they go by: kvprov's {@code |i/n}
 * pieces and cloud-init's {@code msg_i} chunks are held only until their group is complete, so a
 * pool of any size is read in near-constant memory.
 */
final class Items implements PoolInput.PartVisitor {

  private static final String KNOWN_KVPROV_GRAMMAR =
      KvpRecordFormat.KEY_PREFIX + KvpRecordFormat.VERSION + "|";

  private final Consumer<Item> sink;

  /**
   * Items are delivered in pool order (of their first record): one that is complete waits while a
   * group that started before it is still open, up to {@link #MAX_HELD} items; past that (a group
   * that never completes in a huge pool) they go out of order rather than fill memory.
   */
  private final java.util.PriorityQueue<Item> held =
      new java.util.PriorityQueue<>(java.util.Comparator.comparingInt(Item::index));

  static final int MAX_HELD = 4096;
  private final Map<String, Group> open = new LinkedHashMap<>();
  private final List<KvpProblem> pending = new ArrayList<>();

  /** The azure-init value being put back together: its pieces repeat one key, one after another. */
  private AzureInitPieces azureInit;

  private static final class Group {
    final int first;
    final List<Integer> records = new ArrayList<>();
    final TreeMap<Integer, String> pieces = new TreeMap<>();
    final List<String> problems = new ArrayList<>();

    /** cloud-init: the longest chunk so far, and the last chunk's number once seen. */
    int longest;

    int last = -1;
    final int expected;
    final String writer;

    Group(int first, int expected, String writer) {
      this.first = first;
      this.expected = expected;
      this.writer = writer;
    }
  }

  Items(Consumer<Item> sink) {
    this.sink = sink;
  }

  static String writerOf(String key) {
    return Writers.of(key).name();
  }

  @Override
  public void problem(KvpProblem problem) {
    if (problem.kind() == KvpProblem.Kind.EXPORT_ITEM_INVALID
        || problem.kind() == KvpProblem.Kind.TORN_RECORD) {
      // an export item that could not be read, or the bytes of a record cut short, have no entry
      // to carry them: each is an item of its own
      if (azureInit != null) {
        emitAzureInit();
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
            Writers.OTHER.name(),
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
    if (azureInit != null && !azureInit.take(entry, valueBytes, recordProblems)) {
      emitAzureInit();
    }
    if (azureInit == null && Writers.AZURE_INIT.owns(record.key())) {
      azureInit = new AzureInitPieces(entry, valueBytes, recordProblems);
      return;
    }
    if (azureInit != null) {
      return;
    }
    List<String> problems =
        new ArrayList<>(recordProblems.stream().map(KvpProblem::toString).toList());
    String key = record.key();
    if (Writers.CLOUD_INIT.owns(key)) {
      closeCloudInitGroupsOtherThan(key);
    }
    int bar = key.lastIndexOf('|');
    int slash = key.indexOf('/', bar + 1);
    if (key.startsWith(KvpRecordFormat.KEY_PREFIX) && !key.startsWith(KNOWN_KVPROV_GRAMMAR)) {
      problems.add("a kvprov key of a grammar this kvp does not know (it reads kvprov-1)");
    } else if (key.startsWith(KvpRecordFormat.KEY_PREFIX)
        && slash > 0
        && digits(key, bar + 1, slash)
        && digits(key, slash + 1, key.length())
        && Integer.parseInt(key, slash + 1, key.length(), 10) > 0) {
      collect(
          key.substring(0, bar),
          entry,
          Integer.parseInt(key, bar + 1, slash, 10),
          Integer.parseInt(key, slash + 1, key.length(), 10),
          record.value(),
          Writers.KVPROV.name(),
          problems);
      return;
    }
    int chunk = cloudInitChunk(record.key(), record.value());
    if (chunk >= 0) {
      collect(
          record.key().substring(0, record.key().lastIndexOf('|')),
          entry,
          chunk,
          -1,
          record.value(),
          Writers.CLOUD_INIT.name(),
          problems);
      return;
    }
    deliver(
        new Item(
            entry.index(),
            List.of(entry.index()),
            record.key(),
            writerOf(record.key()),
            record.value(),
            problems));
  }

  private void collect(
      String base,
      PoolEntry entry,
      int piece,
      int expected,
      String value,
      String writer,
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
    if (group.writer.equals(Writers.CLOUD_INIT.name())) {
      // cloud-init does not say how many chunks there are: they are all as long but the last,
      // which holds the rest of the message and is shorter.
      if (value.length() < group.longest) {
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
    held.add(item);
    int oldestOpen = Integer.MAX_VALUE;
    for (Group g : open.values()) {
      oldestOpen = Math.min(oldestOpen, g.first);
    }
    if (azureInit != null) {
      oldestOpen = Math.min(oldestOpen, azureInit.first());
    }
    while (!held.isEmpty() && (held.peek().index() < oldestOpen || held.size() > MAX_HELD)) {
      sink.accept(held.poll());
    }
  }

  /**
   * cloud-init writes an event's chunks one after another: a record of another cloud-init event
   * means the open ones are complete (their last chunk may have been as long as the others).
   */
  private void closeCloudInitGroupsOtherThan(String key) {
    String base = key.substring(0, Math.max(key.lastIndexOf('|'), 0));
    for (var it = open.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, Group> e = it.next();
      if (e.getValue().writer.equals(Writers.CLOUD_INIT.name())
          && !e.getKey().equals(base)
          && !e.getKey().equals(key)) {
        it.remove();
        emit(e.getKey(), e.getValue());
      }
    }
  }

  private void emitAzureInit() {
    deliver(azureInit.item());
    azureInit = null;
  }

  /** Emits what is still open at the end of the pool: cloud-init groups, and incomplete ones. */
  @Override
  public void finish() {
    if (azureInit != null) {
      emitAzureInit();
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
      sink.accept(held.poll());
    }
  }

  private void emit(String base, Group group) {
    List<String> all = group.problems;
    String value;
    if (group.writer.equals(Writers.CLOUD_INIT.name())) {
      value = cloudInitValue(group, all);
    } else {
      if (group.pieces.size() != group.expected) {
        all.add(
            (group.expected - group.pieces.size()) + " of " + group.expected + " pieces missing");
      }
      value = String.join("", group.pieces.values());
    }
    deliver(new Item(group.first, group.records, base, group.writer, value, all));
  }

  /**
   * The event JSON as cloud-init would have written it unsplit: the chunks' raw {@code msg} slices
   * joined in {@code msg_i} order (a slice may end inside an escape), unescaped once.
   */
  private String cloudInitValue(Group group, List<String> problems) {
    StringBuilder escaped = new StringBuilder();
    int expect = 0;
    for (Map.Entry<Integer, String> piece : group.pieces.entrySet()) {
      int chunk = piece.getKey();
      if (chunk > expect) {
        problems.add(
            chunk - expect == 1
                ? "cloud-init chunk " + expect + " missing"
                : "cloud-init chunks " + expect + " to " + (chunk - 1) + " missing");
      }
      expect = chunk + 1;
      escaped.append(slice(piece.getValue()));
    }
    try {
      String message = Json.unescape(escaped.toString());
      ObjectNode event =
          (ObjectNode) Json.parse(withoutMessage(group.pieces.firstEntry().getValue()));
      event.remove("msg_i");
      event.put("msg", message);
      return Json.write(event);
    } catch (Exception e) {
      problems.add("cloud-init chunks do not reassemble: " + e.getMessage());
      return String.join("", group.pieces.values());
    }
  }

  private static final String MSG_I = "\"msg_i\":";
  private static final String MSG = ",\"msg\":\"";

  /**
   * The chunk number of a cloud-init chunk ({@code CLOUD_INIT|…|<i>} with {@code "msg_i":<i>} in
   * its value), or -1 for any other record.
   */
  static int cloudInitChunk(String key, String value) {
    if (!Writers.CLOUD_INIT.owns(key)) {
      return -1;
    }
    int bar = key.lastIndexOf('|');
    int at = value.indexOf(MSG_I);
    if (at < 0 || !digits(key, bar + 1, key.length())) {
      return -1;
    }
    int from = at + MSG_I.length();
    int to = from;
    while (to < value.length() && to - from < 9 && Character.isDigit(value.charAt(to))) {
      to++;
    }
    return to == from ? -1 : Integer.parseInt(value, from, to, 10);
  }

  private static boolean digits(String s, int from, int to) {
    if (to <= from || to - from > 9) {
      return false;
    }
    for (int i = from; i < to; i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }

  /**
   * A chunk's slice of the escaped message: everything between {@code ,"msg":"} and the closing
   * {@code "}}. Taken by position, not by parsing: a slice may end inside an escape.
   */
  private static String slice(String chunk) {
    int at = chunk.indexOf(MSG);
    if (at < 0) {
      return "";
    }
    int end = chunk.endsWith("\"}") ? chunk.length() - 2 : chunk.length();
    return chunk.substring(Math.min(at + MSG.length(), end), end);
  }

  /** The chunk's JSON without its message: the event's other fields. */
  private static String withoutMessage(String chunk) {
    int at = chunk.indexOf(MSG);
    return at < 0 ? chunk : chunk.substring(0, at) + "}";
  }
}
