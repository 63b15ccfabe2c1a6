package dev.kvprov.inspect.writers;

import io.opentelemetry.api.common.Attributes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** One span of any writer, rebuilt from its records: for {@code kvp tree}. */
public final class SpanNode {
  public final String name;
  public final Writer writer;
  public Instant start;
  public Instant end;

  /** The start and end by the writer's monotonic boot clock (kvprov's {@code Boot}), or null. */
  public Duration startSinceBoot;

  public Duration endSinceBoot;

  /**
   * The pool records that told its start and end, for a writer that writes each as it happens
   * (azure-init's DIAG); -1 for the others. Times that are equal (whole seconds) are ordered by
   * them.
   */
  public int startRecord = -1;

  public int endRecord = -1;

  public String status = "unfinished";
  public String message = "";

  /** What a span that did not fail found, in one line (kvprov's network snapshot), or empty. */
  public String summary = "";

  public final List<SpanNode> children = new ArrayList<>();

  /** The ids the writer recorded (kvprov's, in hex); null for writers that record none. */
  public String traceId;

  public String spanId;
  public String parentSpanId;

  /** The boot's milestones its writer recorded on it (kvprov's run span), in order. */
  public final List<Milestone> milestones = new ArrayList<>();

  /** A moment of the boot: {@code kernel}, {@code userspace}, {@code ready}, … */
  public record Milestone(String name, Instant at) {}

  /** The span's attributes as the writer recorded them (kvprov's), secrets already removed. */
  public Attributes attributes = Attributes.empty();

  SpanNode(String name, Writer writer) {
    this.name = name;
    this.writer = writer;
  }

  public Duration duration() {
    return start == null || end == null ? null : Duration.between(start, end);
  }
}
