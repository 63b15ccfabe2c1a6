package dev.kvprov.inspect;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvprov.kvp.KvpProblem;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolEntry;
import dev.kvprov.kvp.PoolVisitor;
import dev.kvprov.otel.KvpRecordFormat;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns a stream of pool records into logical {@link Item}s as they go by: kvprov's {@code |i/n}
 * pieces and cloud-init's {@code msg_i} chunks are held only until their group is complete, so a
 * pool of any size is read in near-constant memory.
 */
final class Items implements PoolVisitor {
  private static final Pattern KVPROV_PIECE =
      Pattern.compile("(kvprov-.*)\\|(\\d{1,9})/(\\d{1,9})");
  private static final Pattern CLOUD_INIT_PIECE = Pattern.compile("(CLOUD_INIT\\|.*)\\|(\\d{1,9})");
  private static final Pattern MSG_I = Pattern.compile("\"msg_i\":(\\d{1,9})");
  private static final Pattern MSG = Pattern.compile("\"msg\":\"((?:[^\"\\\\]|\\\\.)*)");

  static final String AZURE_INIT_PREFIX = "azure-init-";

  private final Consumer<Item> sink;
  private final ObjectMapper json = new ObjectMapper();
  private final Map<String, Group> open = new LinkedHashMap<>();
  private final List<KvpProblem> pending = new ArrayList<>();

  /** The azure-init value being put back together: its pieces repeat one key, one after another. */
  private AzureInitPieces azureInit;

  private static final class Group {
    final int first;
    final List<Integer> records = new ArrayList<>();
    final TreeMap<Integer, String> pieces = new TreeMap<>();
    final List<String> problems = new ArrayList<>();
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
    if (key.startsWith(KvpRecordFormat.KEY_PREFIX)) {
      return "kvprov";
    }
    if (key.startsWith("CLOUD_INIT|")) {
      return "cloud-init";
    }
    if (key.startsWith(AZURE_INIT_PREFIX)) {
      return "azure-init";
    }
    if (key.equals("PROVISIONING_REPORT")) {
      return "report";
    }
    return "other";
  }

  @Override
  public void problem(KvpProblem problem) {
    if (problem.kind() == KvpProblem.Kind.EXPORT_ITEM_INVALID) {
      // an export item that could not be read has no entry to carry it: it is an item of its own
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
    sink.accept(
        new Item(
            index,
            List.of(),
            "",
            "other",
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
    if (azureInit == null && record.key().startsWith(AZURE_INIT_PREFIX)) {
      azureInit = new AzureInitPieces(entry, valueBytes, recordProblems);
      return;
    }
    if (azureInit != null) {
      return;
    }
    List<String> problems = recordProblems.stream().map(KvpProblem::toString).toList();
    Matcher kvprov = KVPROV_PIECE.matcher(record.key());
    if (record.key().startsWith(KvpRecordFormat.KEY_PREFIX) && kvprov.matches()) {
      collect(
          kvprov.group(1),
          entry,
          Integer.parseInt(kvprov.group(2)),
          Integer.parseInt(kvprov.group(3)),
          record.value(),
          "kvprov",
          problems);
      return;
    }
    Matcher cloudInit = CLOUD_INIT_PIECE.matcher(record.key());
    Matcher msgI = MSG_I.matcher(record.value());
    if (record.key().startsWith("CLOUD_INIT|") && cloudInit.matches() && msgI.find()) {
      // cloud-init does not say how many chunks there are: a group ends with a chunk whose slice
      // of the message is the rest (see finish()); until then it stays open.
      collect(
          cloudInit.group(1),
          entry,
          Integer.parseInt(msgI.group(1)),
          -1,
          record.value(),
          "cloud-init",
          problems);
      return;
    }
    sink.accept(
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
    if (group.pieces.put(piece, value) != null) {
      group.problems.add("record " + entry.index() + " repeats piece " + piece);
    }
    if (group.expected > 0 && group.pieces.size() == group.expected) {
      open.remove(base);
      emit(base, group);
    }
  }

  private void emitAzureInit() {
    sink.accept(azureInit.item());
    azureInit = null;
  }

  /** Emits what is still open at the end of the pool: cloud-init groups, and incomplete ones. */
  void finish() {
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
  }

  private void emit(String base, Group group) {
    List<String> all = group.problems;
    String value;
    if (group.writer.equals("cloud-init")) {
      value = cloudInitValue(group, all);
    } else {
      if (group.pieces.size() != group.expected) {
        all.add(
            (group.expected - group.pieces.size()) + " of " + group.expected + " pieces missing");
      }
      value = String.join("", group.pieces.values());
    }
    sink.accept(new Item(group.first, group.records, base, group.writer, value, all));
  }

  /**
   * The event JSON as cloud-init would have written it unsplit: the chunks' raw {@code msg} slices
   * joined in {@code msg_i} order (a slice may end inside an escape), unescaped once.
   */
  private String cloudInitValue(Group group, List<String> problems) {
    StringBuilder escaped = new StringBuilder();
    int expect = 0;
    for (Map.Entry<Integer, String> piece : group.pieces.entrySet()) {
      if (piece.getKey() != expect++) {
        problems.add("cloud-init chunk " + (expect - 1) + " missing");
      }
      Matcher m = MSG.matcher(piece.getValue());
      if (m.find()) {
        escaped.append(m.group(1));
      }
    }
    try {
      String message = json.readValue("\"" + escaped + "\"", String.class);
      ObjectNode event =
          (ObjectNode)
              json.readTree(
                  group.pieces.firstEntry().getValue().replaceFirst(",\"msg\":\".*$", "}"));
      event.remove("msg_i");
      event.put("msg", message);
      return json.writeValueAsString(event);
    } catch (Exception e) {
      problems.add("cloud-init chunks do not reassemble: " + e.getMessage());
      return String.join("", group.pieces.values());
    }
  }
}
