package dev.kvprov.inspect;

import java.time.Duration;
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

  /** A span whose start is known; with no end, it was still running when the pool was read. */
  void span(SpanNode span) {
    spans.add(span);
  }

  /** An error event at {@code at}. */
  void failure(Instant at, String message) {
    failures.add(new Failure(at, message));
  }

  List<SpanNode> roots() {
    spans.removeIf(n -> n.start == null);
    spans.sort(
        Comparator.comparing((SpanNode n) -> n.start)
            .thenComparing(ContainedSpans::nestingEnd, Comparator.reverseOrder()));
    for (Failure failure : failures) {
      spans.stream()
          .filter(n -> !n.start.isAfter(failure.at()) && !end(n).isBefore(failure.at()))
          .min(Comparator.comparing(n -> Duration.between(n.start, end(n))))
          .ifPresent(
              n -> {
                // one still running stays so (it never ended); a span that failed with its own
                // words keeps them
                boolean ownError = n.status.equals("error") && !n.message.isEmpty();
                n.status = n.end == null ? n.status : "error";
                n.message = ownError ? n.message : failure.message();
              });
    }
    List<SpanNode> top = new ArrayList<>();
    Deque<SpanNode> enclosing = new ArrayDeque<>();
    for (SpanNode node : spans) {
      while (!enclosing.isEmpty() && nestingEnd(enclosing.peek()).isBefore(nestingEnd(node))) {
        enclosing.pop();
      }
      (enclosing.isEmpty() ? top : enclosing.peek().children).add(node);
      enclosing.push(node);
    }
    return top;
  }

  /** A span's end; one still running may be where an error happened, for as long as it runs. */
  private static Instant end(SpanNode span) {
    return span.end == null ? Instant.MAX : span.end;
  }

  /**
   * Where a span ends, for nesting: one still running goes under the span it started in, and what
   * starts after it is not taken to be inside it (nothing says so).
   */
  private static Instant nestingEnd(SpanNode span) {
    return span.end == null ? span.start : span.end;
  }
}
