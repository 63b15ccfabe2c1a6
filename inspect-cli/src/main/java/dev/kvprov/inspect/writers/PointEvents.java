package dev.kvprov.inspect.writers;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@code kvp timeline} needs from the writers besides their spans: point events (things that
 * happened at one moment) and clues to when the boot began, each writer's by its {@link
 * PointReader}.
 */
public final class PointEvents {
  /**
   * One moment: a kvprov span event or log record, a cloud-init event other than start and finish,
   * an azure-init event, the provisioning report.
   *
   * @param time the wall-clock time, or null if unreadable
   * @param sinceBoot the writer's own time since boot (monotonic), or null
   * @param status {@code error} for an error-level event or a failure report, {@code ok} for a
   *     success report, else null
   * @param record the pool record that told it, for a writer that writes each record as things
   *     happen (azure-init's DIAG, like {@link SpanNode#startRecord}); -1 for the others
   */
  public record Point(
      Instant time,
      Duration sinceBoot,
      String writer,
      String kind,
      String name,
      String status,
      String message,
      int record) {
    /** A point of a writer whose records' order says nothing of time. */
    public Point(
        Instant time,
        Duration sinceBoot,
        String writer,
        String kind,
        String name,
        String status,
        String message) {
      this(time, sinceBoot, writer, kind, name, status, message, -1);
    }
  }

  public final List<Point> points = new ArrayList<>();
  private final ItemPasses passes;

  /** Point events of their own items. */
  public PointEvents() {
    this(new ItemPasses());
  }

  /** Point events of the items read by {@code passes} (which {@link SpanForest} may share). */
  public PointEvents(ItemPasses passes) {
    this.passes = passes;
  }

  public void add(Item item) {
    add(passes.read(item));
  }

  /** Adds an item read by this one's passes, in pool order. */
  public void add(ItemReader.Ready read) {
    read.add(points);
  }

  /** Learns from a span what its writer's spans tell of the boot. */
  public void span(SpanNode span) {
    passes.pass(span.writer).span(span);
  }

  /** When the boot began, by the first writer (in {@link Writers}' order) whose records say. */
  public PointReader.Boot boot() {
    for (ItemReader.Pass pass : passes.inOrder()) {
      PointReader.Boot boot = pass.boot();
      if (boot != null) {
        return boot;
      }
    }
    return null;
  }
}
