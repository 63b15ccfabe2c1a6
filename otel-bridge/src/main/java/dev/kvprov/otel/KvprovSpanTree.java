package dev.kvprov.otel;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * kvprov's spans rebuilt from its records: a span is its start and end record (either may be
 * missing: a span that never ended, a start the budget or a clear took), under its parent by span
 * id. A damaged or hostile pool cannot hide spans: a span whose parents lead back to it is a root.
 * Building it takes no stack, however deep the nesting.
 */
public final class KvprovSpanTree {
  private KvprovSpanTree() {}

  /**
   * One span.
   *
   * @param id its span id (the records' record id)
   * @param start its start record, or null
   * @param end its end record, or null when it never ended
   * @param children the spans whose parent it is, in the order their first record came
   */
  public record Span(String id, KvprovRecord start, KvprovRecord end, List<Span> children) {
    /** Its first record: the start, or the end when the start is missing. */
    public KvprovRecord first() {
      return start != null ? start : end;
    }

    /** The id of its parent, as its records say; empty for a root. */
    public Optional<String> parentId() {
      Optional<String> parent = start == null ? Optional.empty() : start.parentSpanId();
      return parent.isPresent() || end == null ? parent : end.parentSpanId();
    }
  }

  /**
   * The top spans of {@code records} (other kinds of record are passed over), their children below
   * them, in the order each span's first record came.
   *
   * @param notes where to say what had to change to show a damaged pool (a loop of parents)
   */
  public static List<Span> roots(Iterable<KvprovRecord> records, List<String> notes) {
    Map<String, KvprovRecord> starts = new LinkedHashMap<>();
    Map<String, KvprovRecord> ends = new LinkedHashMap<>();
    Set<String> order = new java.util.LinkedHashSet<>();
    for (KvprovRecord r : records) {
      if (r.kind() == KvprovRecord.Kind.START) {
        starts.put(r.recordId(), r);
      } else if (r.kind() == KvprovRecord.Kind.END) {
        ends.put(r.recordId(), r);
      } else {
        continue;
      }
      order.add(r.recordId());
    }
    Map<String, Span> spans = new LinkedHashMap<>();
    for (String id : order) {
      spans.put(id, new Span(id, starts.get(id), ends.get(id), new ArrayList<>()));
    }
    List<Span> roots = new ArrayList<>();
    for (Span span : spans.values()) {
      String parentId = parentIfNoCycle(span, spans, notes);
      Span parent = parentId == null ? null : spans.get(parentId);
      (parent == null ? roots : parent.children()).add(span);
    }
    return roots;
  }

  /** The span's parent id, or null when it has none, it is missing, or the chain loops. */
  private static String parentIfNoCycle(Span span, Map<String, Span> spans, List<String> notes) {
    String parent = span.parentId().orElse(null);
    if (parent == null || !spans.containsKey(parent)) {
      return null;
    }
    Set<String> seen = new HashSet<>();
    seen.add(span.id());
    for (String up = parent;
        up != null && spans.containsKey(up);
        up = spans.get(up).parentId().orElse(null)) {
      if (!seen.add(up)) {
        if (up.equals(span.id())) {
          notes.add("span " + span.id() + "'s parents lead back to it; shown as a root");
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
