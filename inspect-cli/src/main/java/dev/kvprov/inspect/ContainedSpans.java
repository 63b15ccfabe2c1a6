package dev.kvprov.inspect;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;

/**
 * Spans of a writer that records no parents and writes each span when it closes (azure-init): they
 * nest by time, a span's parent the innermost span that contains it, and an error event fails the
 * innermost span that was running when it happened. The order of the pool says nothing of nesting.
 */
final class ContainedSpans {
  private final List<SpanNode> spans = new ArrayList<>();
  private final List<Failure> failures = new ArrayList<>();

  private record Failure(Instant at, String message) {}

  /** A finished span (start and end both known). */
  void span(SpanNode span) {
    spans.add(span);
  }

  /** An error event at {@code at}. */
  void failure(Instant at, String message) {
    failures.add(new Failure(at, message));
  }

  List<SpanNode> roots() {
    spans.sort(
        Comparator.comparing((SpanNode n) -> n.start)
            .thenComparing(n -> n.end, Comparator.reverseOrder()));
    for (Failure failure : failures) {
      spans.stream()
          .filter(n -> !n.start.isAfter(failure.at()) && !n.end.isBefore(failure.at()))
          .min(Comparator.comparing(SpanNode::duration))
          .ifPresent(
              n -> {
                n.status = "error";
                n.message = failure.message();
              });
    }
    List<SpanNode> top = new ArrayList<>();
    Deque<SpanNode> enclosing = new ArrayDeque<>();
    for (SpanNode node : spans) {
      while (!enclosing.isEmpty() && enclosing.peek().end.isBefore(node.end)) {
        enclosing.pop();
      }
      (enclosing.isEmpty() ? top : enclosing.peek().children).add(node);
      enclosing.push(node);
    }
    return top;
  }
}
