package dev.kvprov.inspect;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvprov.otel.KvpRecordFormat;
import dev.kvprov.otel.KvprovRecord;
import dev.kvprov.otel.Rfc3339;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Spans rebuilt from items: kvprov's by span and parent id; cloud-init's by pairing start and
 * finish events of one name, nested by their {@code /}-joined names; azure-init's, which carry no
 * parent, nested by time containment.
 */
final class SpanForest {
  final List<SpanNode> roots = new ArrayList<>();
  private final Map<String, SpanNode> kvprovSpans = new LinkedHashMap<>();
  private final Map<String, String> kvprovParents = new LinkedHashMap<>();
  private final Deque<SpanNode> cloudInitOpen = new ArrayDeque<>();
  private final List<SpanNode> azureInitSpans = new ArrayList<>();
  private final List<AzureInitRecord> azureInitErrors = new ArrayList<>();

  void add(Item item) {
    switch (item.writer()) {
      case "kvprov" -> kvprov(item);
      case "cloud-init" -> cloudInit(item);
      case "azure-init" -> azureInit(item);
      default -> {}
    }
  }

  private void kvprov(Item item) {
    KvprovRecord r = KvpRecordFormat.decodeJoined(item.key(), item.value()).orElse(null);
    if (r == null) {
      return;
    }
    if (r.kind() != KvprovRecord.Kind.START && r.kind() != KvprovRecord.Kind.END) {
      return;
    }
    SpanNode node =
        kvprovSpans.computeIfAbsent(
            r.recordId(), id -> new SpanNode(r.name().orElse("?"), "kvprov"));
    r.parentSpanId().ifPresent(p -> kvprovParents.put(r.recordId(), p));
    node.start = r.start().orElse(node.start);
    node.traceId = r.traceId().orElse(node.traceId);
    node.spanId = r.spanId().orElse(node.spanId);
    node.parentSpanId = r.parentSpanId().orElse(node.parentSpanId);
    if (!r.attributes().isEmpty()) {
      node.attributes = node.attributes.toBuilder().putAll(r.attributes()).build();
    }
    node.startSinceBoot = r.sinceBoot().orElse(node.startSinceBoot);
    if (r.kind() == KvprovRecord.Kind.END) {
      node.end = r.end().orElse(null);
      node.endSinceBoot = r.endSinceBoot().orElse(null);
      node.status = r.status().map(s -> s.equals("error") ? "error" : "ok").orElse("ok");
      node.message = r.errorMessage().orElse("");
    }
  }

  private void cloudInit(Item item) {
    JsonNode event;
    try {
      event = Json.parse(item.value());
    } catch (Exception e) {
      return;
    }
    String type = event.path("type").asText();
    String name = event.path("name").asText();
    Instant ts = time(event.path("ts").asText());
    if (type.equals("start")) {
      SpanNode node = new SpanNode(name, "cloud-init");
      node.start = ts;
      SpanNode parent = null;
      for (SpanNode open : cloudInitOpen) {
        if (name.startsWith(open.name + "/")) {
          parent = open;
          break;
        }
      }
      (parent == null ? roots : parent.children).add(node);
      cloudInitOpen.push(node);
    } else if (type.equals("finish")) {
      SpanNode finished = null;
      for (SpanNode open : cloudInitOpen) {
        if (open.name.equals(name)) {
          finished = open;
          cloudInitOpen.remove(open);
          break;
        }
      }
      if (finished == null) {
        // Its start is gone (cleared, or cut off by a budget): a failure must still show.
        finished = new SpanNode(name, "cloud-init");
        roots.add(finished);
      }
      finished.end = ts;
      String result = event.path("result").asText("SUCCESS");
      finished.status = result.equals("FAIL") ? "error" : "ok";
      // a WARN finish keeps its message, but the step did not fail
      finished.message = result.equals("SUCCESS") ? "" : event.path("msg").asText("");
    }
  }

  private void azureInit(Item item) {
    AzureInitRecord r = AzureInitRecord.parse(item.key(), item.value()).orElse(null);
    if (r == null || r.start().isEmpty()) {
      return;
    }
    boolean error = r.level().equals("ERROR");
    if (r.isSpan()) {
      SpanNode node = new SpanNode(r.name(), "azure-init");
      node.start = r.start().get();
      node.end = r.end().get();
      node.status = error ? "error" : "ok";
      azureInitSpans.add(node);
    } else if (error) {
      azureInitErrors.add(r);
    }
  }

  /** An ERROR event fails the innermost span that was running when it happened. */
  private void failAzureInitSpans() {
    for (AzureInitRecord error : azureInitErrors) {
      Instant at = error.start().get();
      azureInitSpans.stream()
          .filter(n -> !n.start.isAfter(at) && !n.end.isBefore(at))
          .min(Comparator.comparing(SpanNode::duration))
          .ifPresent(
              n -> {
                n.status = "error";
                n.message = error.message().orElse("");
              });
    }
  }

  /**
   * Nests azure-init spans by time: a span's parent is the innermost span that contains it. Spans
   * are written when they close, so the order of the pool says nothing about nesting.
   */
  private List<SpanNode> nestAzureInit() {
    azureInitSpans.sort(
        Comparator.comparing((SpanNode n) -> n.start)
            .thenComparing(n -> n.end, Comparator.reverseOrder()));
    failAzureInitSpans();
    List<SpanNode> top = new ArrayList<>();
    Deque<SpanNode> enclosing = new ArrayDeque<>();
    for (SpanNode node : azureInitSpans) {
      while (!enclosing.isEmpty() && enclosing.peek().end.isBefore(node.end)) {
        enclosing.pop();
      }
      (enclosing.isEmpty() ? top : enclosing.peek().children).add(node);
      enclosing.push(node);
    }
    return top;
  }

  /** An RFC 3339 time; one without an offset (as some writers leave it) is taken as UTC. */
  static Instant time(String text) {
    Instant parsed = Rfc3339.parseOrNull(text);
    if (parsed == null && text.length() >= 19 && text.length() <= 29 && text.indexOf('Z') < 0) {
      parsed = Rfc3339.parseOrNull(text + "Z");
    }
    return parsed;
  }

  /**
   * Links kvprov spans to their parents; call once all items are in. A damaged or hostile pool
   * cannot hide spans or exhaust the stack: spans whose parents form a cycle become roots, and
   * nesting deeper than {@link #MAX_DEPTH} is shown flat at that depth. {@link #notes} says so.
   */
  List<SpanNode> finish() {
    List<SpanNode> kvprovRoots = new ArrayList<>();
    for (Map.Entry<String, SpanNode> e : kvprovSpans.entrySet()) {
      String parentId = parentIfNoCycle(e.getKey());
      SpanNode parent = parentId == null ? null : kvprovSpans.get(parentId);
      (parent == null ? kvprovRoots : parent.children).add(e.getValue());
    }
    List<SpanNode> all = new ArrayList<>(kvprovRoots);
    all.addAll(roots);
    all.addAll(nestAzureInit());
    all.sort(Comparator.comparing(n -> n.start == null ? Instant.MAX : n.start));
    capDepth(all);
    return all;
  }

  /** Deeper than any real trace (a boot's is a handful of levels): beyond it, shown flat. */
  static final int MAX_DEPTH = 64;

  /** What {@link #finish} had to change to show a damaged pool: for a note on stderr. */
  final List<String> notes = new ArrayList<>();

  /** The span's parent id, or null when it has none, it is missing, or the chain loops. */
  private String parentIfNoCycle(String id) {
    String parent = kvprovParents.get(id);
    if (parent == null || !kvprovSpans.containsKey(parent)) {
      return null;
    }
    java.util.Set<String> seen = new java.util.HashSet<>();
    seen.add(id);
    for (String up = parent;
        up != null && kvprovSpans.containsKey(up);
        up = kvprovParents.get(up)) {
      if (!seen.add(up)) {
        if (up.equals(id)) {
          notes.add("span " + id + "'s parents lead back to it; shown as a root");
          return null;
        }
        break; // a loop above us: the spans in it are cut there
      }
      if (seen.size() > 10_000) {
        break;
      }
    }
    return parent;
  }

  private void capDepth(List<SpanNode> top) {
    Deque<SpanNode> stack = new ArrayDeque<>();
    Deque<Integer> depths = new ArrayDeque<>();
    top.forEach(
        n -> {
          stack.push(n);
          depths.push(1);
        });
    while (!stack.isEmpty()) {
      SpanNode node = stack.pop();
      int depth = depths.pop();
      if (depth == MAX_DEPTH - 1) {
        List<SpanNode> below = descendants(node);
        if (below.size() > node.children.size()) {
          below.forEach(n -> n.children.clear());
          below.sort(Comparator.comparing(n -> n.start == null ? Instant.MAX : n.start));
          node.children.clear();
          node.children.addAll(below);
          notes.add(
              "spans below '" + node.name + "' nest deeper than " + MAX_DEPTH + "; shown flat");
        }
        continue;
      }
      for (SpanNode child : node.children) {
        stack.push(child);
        depths.push(depth + 1);
      }
    }
  }

  private static List<SpanNode> descendants(SpanNode node) {
    List<SpanNode> out = new ArrayList<>();
    Deque<SpanNode> stack = new ArrayDeque<>(node.children);
    while (!stack.isEmpty()) {
      SpanNode n = stack.pop();
      out.add(n);
      n.children.forEach(stack::push);
    }
    return out;
  }
}
