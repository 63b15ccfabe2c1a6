package dev.kvprov.inspect;

import dev.kvprov.otel.KvpRecordFormat;
import dev.kvprov.otel.KvprovRecord;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * kvprov's spans, by span and parent id: a start and an end record per span (either may be
 * missing). A damaged or hostile pool cannot hide spans: spans whose parents loop become roots.
 */
final class KvprovSpans implements SpanReader {
  private final Map<String, SpanNode> spans = new LinkedHashMap<>();
  private final Map<String, String> parents = new LinkedHashMap<>();

  @Override
  public void add(Item item) {
    KvprovRecord r = KvpRecordFormat.decodeJoined(item.key(), item.value()).orElse(null);
    if (r == null || (r.kind() != KvprovRecord.Kind.START && r.kind() != KvprovRecord.Kind.END)) {
      return;
    }
    SpanNode node =
        spans.computeIfAbsent(
            r.recordId(), id -> new SpanNode(r.name().orElse("?"), Writers.KVPROV.name()));
    r.parentSpanId().ifPresent(p -> parents.put(r.recordId(), p));
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

  @Override
  public List<SpanNode> roots(List<String> notes) {
    List<SpanNode> roots = new ArrayList<>();
    for (Map.Entry<String, SpanNode> e : spans.entrySet()) {
      String parentId = parentIfNoCycle(e.getKey(), notes);
      SpanNode parent = parentId == null ? null : spans.get(parentId);
      (parent == null ? roots : parent.children).add(e.getValue());
    }
    return roots;
  }

  /** The span's parent id, or null when it has none, it is missing, or the chain loops. */
  private String parentIfNoCycle(String id, List<String> notes) {
    String parent = parents.get(id);
    if (parent == null || !spans.containsKey(parent)) {
      return null;
    }
    Set<String> seen = new HashSet<>();
    seen.add(id);
    for (String up = parent; up != null && spans.containsKey(up); up = parents.get(up)) {
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
}
