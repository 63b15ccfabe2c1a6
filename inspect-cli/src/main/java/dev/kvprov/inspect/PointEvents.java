package dev.kvprov.inspect;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@code kvp timeline} needs from the writers besides their spans: point events (things that
 * happened at one moment) and clues to when the boot began, each writer's by its {@link
 * PointReader}.
 */
final class PointEvents {
  /**
   * One moment: a kvprov span event or log record, a cloud-init event other than start and finish,
   * an azure-init event, the provisioning report.
   *
   * @param time the wall-clock time, or null if unreadable
   * @param sinceBoot the writer's own time since boot (monotonic), or null
   * @param status {@code error} for an error-level event or a failure report, {@code ok} for a
   *     success report, else null
   */
  record Point(
      Instant time,
      Duration sinceBoot,
      String writer,
      String kind,
      String name,
      String status,
      String message) {}

  final List<Point> points = new ArrayList<>();
  private final ItemPasses passes;

  /** Point events of their own items. */
  PointEvents() {
    this(new ItemPasses());
  }

  /** Point events of the items read by {@code passes} (which {@link SpanForest} may share). */
  PointEvents(ItemPasses passes) {
    this.passes = passes;
  }

  void add(Item item) {
    add(passes.read(item));
  }

  /** Adds an item read by this one's passes, in pool order. */
  void add(ItemReader.Ready read) {
    read.add(points);
  }

  /** Learns from a span what its writer's spans tell of the boot. */
  void span(SpanNode span) {
    passes.pass(span.writer).span(span);
  }

  /** When the boot began, by the first writer (in {@link Writers}' order) whose records say. */
  PointReader.Boot boot() {
    for (ItemReader.Pass pass : passes.inOrder()) {
      PointReader.Boot boot = pass.boot();
      if (boot != null) {
        return boot;
      }
    }
    return null;
  }
}
