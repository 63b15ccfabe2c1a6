package dev.kvprov.inspect.writers;

import io.opentelemetry.api.common.Attributes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** One span of any writer, rebuilt from its records: for {@code kvp tree}. */
final class SpanNode {
  final String name;
  final Writer writer;
  Instant start;
  Instant end;

  /** The start and end by the writer's monotonic boot clock (kvprov's {@code Boot}), or null. */
  Duration startSinceBoot;

  Duration endSinceBoot;

  String status = "unfinished";
  String message = "";
  final List<SpanNode> children = new ArrayList<>();

  /** The ids the writer recorded (kvprov's, in hex); null for writers that record none. */
  String traceId;

  String spanId;
  String parentSpanId;

  /** The boot's milestones its writer recorded on it (kvprov's run span), in order. */
  final List<Milestone> milestones = new ArrayList<>();

  /** A moment of the boot: {@code kernel}, {@code userspace}, {@code ready}, … */
  record Milestone(String name, Instant at) {}

  /** The span's attributes as the writer recorded them (kvprov's), secrets already removed. */
  Attributes attributes = Attributes.empty();

  SpanNode(String name, Writer writer) {
    this.name = name;
    this.writer = writer;
  }

  Duration duration() {
    return start == null || end == null ? null : Duration.between(start, end);
  }
}
