package dev.kvprov.inspect.writers;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
   */
  public record Point(
      Instant time,
      Duration sinceBoot,
      String writer,
      String kind,
      String name,
      String status,
      String message) {}

  public final List<Point> points = new ArrayList<>();
  private final Map<Writer, PointReader> readers = new LinkedHashMap<>();

  public void add(Item item) {
    add(item, item.writer().reading(item));
  }

  /** Adds an item its writer has already read ({@link Writer#reading}). */
  public void add(Item item, Object reading) {
    reader(item.writer()).add(item, reading, points);
  }

  /** Learns from a span what its writer's spans tell of the boot. */
  public void span(SpanNode span) {
    reader(span.writer).span(span);
  }

  private PointReader reader(Writer writer) {
    return readers.computeIfAbsent(writer, Writer::points);
  }

  /** When the boot began, by the first writer (in {@link Writers}' order) whose records say. */
  public PointReader.Boot boot() {
    for (Writer writer : Writers.all()) {
      PointReader reader = readers.get(writer);
      PointReader.Boot boot = reader == null ? null : reader.boot();
      if (boot != null) {
        return boot;
      }
    }
    return null;
  }
}
