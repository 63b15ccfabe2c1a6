package dev.kvprov.inspect.writers;

import java.time.Instant;
import java.util.List;

/**
 * What {@code kvp timeline} needs from one writer besides its spans: point events (things that
 * happened at one moment), and what its records tell of when the boot began. One per read.
 */
public interface PointReader {
  /** A reader for writers with no points and no clue to the boot. */
  PointReader NONE = (item, reading, points) -> {};

  /**
   * Adds the item's points, if it has any, in the order they come.
   *
   * @param reading what the writer made of it ({@link Writer#reading}), or null
   */
  void add(Item item, Object reading, List<PointEvents.Point> points);

  /** Learns from one of the writer's spans (its start by wall time and by boot clock). */
  default void span(SpanNode span) {}

  /** When the boot began, as this writer's records tell; null if they do not. */
  default Boot boot() {
    return null;
  }

  /**
   * A boot time and where it came from.
   *
   * @param source a token for output ({@code kvprov}, {@code cloud-init})
   * @param description how it was found, in words
   */
  record Boot(Instant time, String source, String description) {}
}
