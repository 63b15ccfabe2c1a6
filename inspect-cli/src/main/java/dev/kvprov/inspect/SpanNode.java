package dev.kvprov.inspect;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** One span of any writer, rebuilt from its records: for {@code kvp tree}. */
final class SpanNode {
  final String name;
  final String writer;
  Instant start;
  Instant end;

  /** The start and end by the writer's monotonic boot clock (kvprov's {@code Boot}), or null. */
  Duration startSinceBoot;

  Duration endSinceBoot;

  String status = "unfinished";
  String message = "";
  final List<SpanNode> children = new ArrayList<>();

  SpanNode(String name, String writer) {
    this.name = name;
    this.writer = writer;
  }

  Duration duration() {
    return start == null || end == null ? null : Duration.between(start, end);
  }
}
