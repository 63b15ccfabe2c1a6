package dev.kvprov.inspect.writers;

import dev.kvprov.otel.Rfc3339;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;

/**
 * Spans rebuilt from items, each writer's by its own {@link SpanReader} (kvprov's by parent id,
 * cloud-init's by name, azure-init's by time), then put together: roots by start, depth capped.
 */
public final class SpanForest {
  private final ItemPasses passes;

  /** Points read with the spans, not kept: a forest alone is only spans. */
  private final List<PointEvents.Point> ignored = new ArrayList<>();

  /** A forest of its own items. */
  public SpanForest() {
    this(new ItemPasses());
  }

  /** A forest of the items read by {@code passes} (which {@link PointEvents} may share). */
  public SpanForest(ItemPasses passes) {
    this.passes = passes;
  }

  public void add(Item item) {
    passes.read(item).add(ignored);
    ignored.clear();
  }

  /** An RFC 3339 time; one without an offset (as some writers leave it) is taken as UTC. */
  public static Instant time(String text) {
    Instant parsed = Rfc3339.parseOrNull(text);
    if (parsed == null && text.length() >= 19 && text.length() <= 29 && text.indexOf('Z') < 0) {
      parsed = Rfc3339.parseOrNull(text + "Z");
    }
    return parsed;
  }

  /**
   * Every writer's spans; call once all items are in. A damaged or hostile pool cannot hide spans
   * or exhaust the stack: spans whose parents form a cycle become roots, and nesting deeper than
   * {@link #MAX_DEPTH} is shown flat at that depth. {@link #notes} says so.
   */
  public List<SpanNode> finish() {
    List<SpanNode> all = new ArrayList<>();
    for (ItemReader.Pass pass : passes.inOrder()) {
      all.addAll(pass.roots(notes));
    }
    all.sort(Comparator.comparing(n -> n.start == null ? Instant.MAX : n.start));
    capDepth(all);
    return all;
  }

  /** Deeper than any real trace (a boot's is a handful of levels): beyond it, shown flat. */
  static final int MAX_DEPTH = 64;

  /** What {@link #finish} had to change to show a damaged pool: for a note on stderr. */
  public final List<String> notes = new ArrayList<>();

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

  /** The latest time any of these spans (or their children) started or ended; null if none. */
  public static Instant lastTime(List<SpanNode> roots) {
    Instant last = null;
    java.util.Deque<SpanNode> todo = new java.util.ArrayDeque<>(roots);
    while (!todo.isEmpty()) {
      SpanNode node = todo.pop();
      for (Instant t : new Instant[] {node.start, node.end}) {
        if (t != null && (last == null || t.isAfter(last))) {
          last = t;
        }
      }
      todo.addAll(node.children);
    }
    return last;
  }

  /**
   * The spans that started and never finished, in the order they started (the last one is where a
   * hung run stopped).
   */
  public static List<SpanNode> unfinished(List<SpanNode> roots) {
    List<SpanNode> open = new ArrayList<>();
    java.util.Deque<SpanNode> todo = new java.util.ArrayDeque<>(roots);
    while (!todo.isEmpty()) {
      SpanNode node = todo.pop();
      if (node.start != null && node.end == null) {
        open.add(node);
      }
      todo.addAll(node.children);
    }
    // equal times (whole seconds) by the records that told them, where the writer says
    open.sort(Comparator.comparing((SpanNode n) -> n.start).thenComparingInt(n -> n.startRecord));
    return open;
  }
}
