package dev.kvprov.inspect.writers;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * Spans of a writer that records no parents (azure-init): they nest by time, a span's parent the
 * innermost span that contains it, and an error event fails the innermost span that was running
 * when it happened. The order of the pool says nothing of nesting, but it breaks ties: with
 * whole-second timestamps, operations that followed one another share a time, and only the order of
 * their records says that each finished before the next started. Both take time in proportion to
 * the spans and events sorted, not their product.
 */
final class ContainedSpans {
  private final List<SpanNode> spans = new ArrayList<>();
  private final List<Failure> failures = new ArrayList<>();

  /** Spans whose writer said how they ended: an error event inside does not change that. */
  private final Set<SpanNode> settled = Collections.newSetFromMap(new IdentityHashMap<>());

  /**
   * A moment, and the record that told it ({@link SpanNode#startRecord}): equal times are ordered
   * by their records. A writer that records no such order (azure-init's first format, one record
   * per span written when it closes) leaves them at -1, so that equal times stay equal.
   */
  private record At(Instant time, int record) implements Comparable<At> {
    static final At NEVER = new At(Instant.MAX, Integer.MAX_VALUE);

    @Override
    public int compareTo(At other) {
      int byTime = time.compareTo(other.time);
      return byTime != 0 ? byTime : Integer.compare(record, other.record);
    }
  }

  private record Failure(At at, String message) {}

  /**
   * A span whose start is known, or will be; with no end, it was still running when the pool was
   * read.
   */
  void span(SpanNode span) {
    spans.add(span);
  }

  /**
   * Marks a span's status as its writer's own word (a finish's result): an error event inside it
   * does not change it.
   */
  void settle(SpanNode span) {
    settled.add(span);
  }

  /** An error event at {@code at}, told by record {@code record} (-1: not known). */
  void failure(Instant at, int record, String message) {
    failures.add(new Failure(new At(at, record), message));
  }

  List<SpanNode> roots() {
    spans.removeIf(n -> n.start == null);
    spans.sort(
        Comparator.comparing(ContainedSpans::start)
            .thenComparing(ContainedSpans::nestingEnd, Comparator.reverseOrder()));
    attributeFailures();
    List<SpanNode> top = new ArrayList<>();
    Deque<SpanNode> enclosing = new ArrayDeque<>();
    for (SpanNode node : spans) {
      while (!enclosing.isEmpty() && nestingEnd(enclosing.peek()).compareTo(nestingEnd(node)) < 0) {
        enclosing.pop();
      }
      (enclosing.isEmpty() ? top : enclosing.peek().children).add(node);
      enclosing.push(node);
    }
    return top;
  }

  /**
   * Each error event goes to the span running when it happened that started last: one sweep in time
   * order, the spans still running on a stack (one that never ended runs to the end).
   */
  private void attributeFailures() {
    failures.sort(Comparator.comparing(Failure::at));
    Deque<SpanNode> running = new ArrayDeque<>();
    int next = 0;
    for (Failure failure : failures) {
      while (next < spans.size() && start(spans.get(next)).compareTo(failure.at()) <= 0) {
        running.push(spans.get(next++));
      }
      while (!running.isEmpty() && end(running.peek()).compareTo(failure.at()) < 0) {
        running.pop();
      }
      SpanNode span = running.peek();
      if (span == null || settled.contains(span)) {
        continue;
      }
      // one still running stays so (it never ended), with the error said
      span.status = span.end == null ? span.status : "error";
      span.message = failure.message();
    }
  }

  /** A span's end; one still running may be where an error happened, for as long as it runs. */
  private static At end(SpanNode span) {
    return span.end == null ? At.NEVER : new At(span.end, span.endRecord);
  }

  private static At start(SpanNode span) {
    return new At(span.start, span.startRecord);
  }

  /**
   * Where a span ends, for nesting: one still running goes under the span it started in, and what
   * starts after it is not taken to be inside it (nothing says so).
   */
  private static At nestingEnd(SpanNode span) {
    return span.end == null ? start(span) : end(span);
  }
}
