package dev.kvprov.inspect.writers;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What {@code kvp timeline} needs from one writer besides its spans: point events (things that
 * happened at one moment), and what its records tell of when the boot began. One per read.
 *
 * @param <R> the writer's reading of an item ({@link ItemReader#reading})
 */
public interface PointReader<R> {
  /** A reader for writers with no points and no clue to the boot. */
  static <R> PointReader<R> none() {
    return (item, reading, points) -> {};
  }

  /**
   * Adds the item's points, if it has any, in the order they come.
   *
   * @param reading the writer's reading of it; empty when it does not read (an unreadable item may
   *     still be a point, or tell of the boot by its key)
   */
  void add(Item item, Optional<R> reading, List<PointEvents.Point> points);

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
