package dev.kvprov.inspect.writers;

import dev.kvprov.otel.KvpRecordFormat;
import dev.kvprov.otel.KvprovRecord;
import dev.kvprov.otel.KvprovSpanTree;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * kvprov's spans, as its own grammar rebuilds them ({@link KvprovSpanTree}: by span and parent id,
 * spans whose parents loop become roots), for {@code kvp}'s commands.
 */
final class KvprovSpans implements SpanReader<KvprovRecord> {
  private final List<KvprovRecord> records = new ArrayList<>();

  /** Boot milestones, by the id of the span they were recorded on. */
  private final java.util.Map<String, List<SpanNode.Milestone>> milestones =
      new java.util.HashMap<>();

  /**
   * One copy of each text that spans repeat (labels, the VM id, trace ids, a span's id in its
   * start, its end and its children, names, times, statuses): the records are held until the last
   * item is in, and a big pool's copies were most of a tree's memory.
   */
  private final java.util.Map<String, String> shared = new java.util.HashMap<>();

  @Override
  public void add(Item item, KvprovRecord r) {
    if (r.kind() == KvprovRecord.Kind.START || r.kind() == KvprovRecord.Kind.END) {
      records.add(compact(r));
    } else if (r.kind() == KvprovRecord.Kind.EVENT
        && r.spanId().isPresent()
        && r.time().isPresent()
        && r.field(KvpRecordFormat.EVENT).orElse("").startsWith(KvprovWriter.MILESTONE)) {
      milestones
          .computeIfAbsent(r.spanId().get(), id -> new ArrayList<>())
          .add(
              new SpanNode.Milestone(
                  r.field(KvpRecordFormat.EVENT).get().substring(KvprovWriter.MILESTONE.length()),
                  r.time().get()));
    }
  }

  private KvprovRecord compact(KvprovRecord r) {
    List<KvprovRecord.Field> fields = new ArrayList<>(r.fields().size());
    for (KvprovRecord.Field f : r.fields()) {
      fields.add(new KvprovRecord.Field(share(f.label()), share(f.text())));
    }
    return new KvprovRecord(
        r.kind(), r.level(), share(r.vmId()), r.recordId(), fields, r.attributes());
  }

  private String share(String text) {
    String first = shared.putIfAbsent(text, text);
    return first == null ? text : first;
  }

  @Override
  public List<SpanNode> roots(List<String> notes) {
    List<SpanNode> roots = new ArrayList<>();
    // Without recursion: a hostile pool may nest spans thousands deep.
    record Pending(KvprovSpanTree.Span span, List<SpanNode> into) {}
    Deque<Pending> pending = new ArrayDeque<>();
    KvprovSpanTree.roots(records, notes).forEach(s -> pending.add(new Pending(s, roots)));
    shared.clear();
    while (!pending.isEmpty()) {
      Pending next = pending.poll();
      SpanNode node = node(next.span());
      node.milestones.addAll(milestones.getOrDefault(next.span().id(), List.of()));
      next.into().add(node);
      next.span().children().forEach(c -> pending.add(new Pending(c, node.children)));
    }
    return roots;
  }

  private static SpanNode node(KvprovSpanTree.Span span) {
    KvprovRecord first = span.first();
    SpanNode node = new SpanNode(first.name().orElse("?"), Writers.KVPROV);
    for (KvprovRecord r : span.end() == null ? List.of(first) : List.of(first, span.end())) {
      node.start = r.start().orElse(node.start);
      node.traceId = r.traceId().orElse(node.traceId);
      node.spanId = r.spanId().orElse(node.spanId);
      node.parentSpanId = r.parentSpanId().orElse(node.parentSpanId);
      if (!r.attributes().isEmpty()) {
        node.attributes = node.attributes.toBuilder().putAll(r.attributes()).build();
      }
      node.startSinceBoot = r.sinceBoot().orElse(node.startSinceBoot);
    }
    KvprovRecord end = span.end();
    if (end != null) {
      node.end = end.end().orElse(null);
      node.endSinceBoot = end.endSinceBoot().orElse(null);
      node.status = end.status().map(s -> s.equals("error") ? "error" : "ok").orElse("ok");
      // a failure's error, or what a span that did not fail warned of (an attempt retried)
      node.message = end.errorMessage().or(end::warning).orElse("");
      node.summary = end.summary().orElse("");
    }
    return node;
  }
}
