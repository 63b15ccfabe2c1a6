package dev.kvprov.inspect.writers;

import java.util.List;
import java.util.Optional;

/**
 * What one writer's items mean, once {@code Items} has put them together: the event an item says,
 * its payload, where it was written, and the writer's spans and points.
 *
 * <p>{@code R} is the writer's own reading of an item (kvprov's decoded record, cloud-init's parsed
 * JSON), worked out once an item and used for all of these; it never leaves the writer: callers get
 * the event, or a {@link Pass} that turns items into spans and points.
 */
public abstract class ItemReader<R> {
  /**
   * The writer's reading of an item; empty when it does not read. Called on any thread: a big
   * pool's items are read on every core ({@code InPoolOrder}).
   */
  abstract Optional<R> reading(Item item);

  /** What the item says happened; empty if it says nothing kvp reads or cannot be read. */
  final Optional<Event> event(Item item) {
    return reading(item).flatMap(r -> event(item, r));
  }

  /** What an item the writer could read says happened; empty if nothing kvp shows. */
  Optional<Event> event(Item item, R reading) {
    return Optional.empty();
  }

  /**
   * Whether the item is a second copy of what another writer's items in the pool say (kvprov's own
   * records, also written in azure-init's {@code DIAG} grammar): the views of a boot (tree, report,
   * timeline, list without {@code --writer}) leave it out, so that no step shows twice.
   */
  public boolean copy(Item item) {
    return false;
  }

  /** A fresh reader of its items into spans, for one read of a pool. */
  SpanReader<R> spans() {
    return SpanReader.none();
  }

  /** A fresh reader of its items into point events and a clue to the boot time. */
  PointReader<R> points() {
    return PointReader.none();
  }

  /**
   * An encoded payload an item carries, expanded to text ({@code kvp decode}).
   *
   * @param encoding as the writer names it
   * @param text the text it holds, or null when it does not decode
   * @param error why it does not decode, or null
   */
  public record Payload(String encoding, String text, String error) {}

  /** The item's encoded payload, expanded; empty if it carries none. */
  public Optional<Payload> payload(Item item) {
    return Optional.empty();
  }

  /**
   * What an item says of where it was written, for {@code export}'s resources and trace ids.
   *
   * @param vmId the VM id it names, or null
   * @param vmIdOfPool whether that id tells only the pool's VM (a report), not the writer's own
   * @param bootEpoch the boot (seconds since the epoch) its key names, or null
   */
  public record Origin(String vmId, boolean vmIdOfPool, Long bootEpoch) {
    static final Origin NONE = new Origin(null, false, null);
  }

  public Origin origin(Item item) {
    return Origin.NONE;
  }

  /**
   * One read of a pool by this writer's reader: its spans and points, items added in pool order.
   */
  interface Pass {
    /**
     * Reads an item, on any thread: nothing of the pass changes until the result is added, in pool
     * order. Each item is read once, for its spans and its points both.
     */
    Ready read(Item item);

    /** The writer's top spans, once every item is in ({@link SpanReader#roots}). */
    List<SpanNode> roots(List<String> notes);

    /** Learns from one of the writer's spans ({@link PointReader#span}). */
    void span(SpanNode span);

    /** When the boot began, as the writer's records tell; null if they do not. */
    PointReader.Boot boot();
  }

  /** An item read by a {@link Pass}, waiting for its turn in pool order. */
  public interface Ready {
    /** Adds the item's spans to its pass, and its points to {@code points}. */
    void add(List<PointEvents.Point> points);
  }

  /** A fresh pass: the writer's span and point readers, fed one reading of each item. */
  final Pass pass() {
    SpanReader<R> spans = spans();
    PointReader<R> points = points();
    return new Pass() {
      @Override
      public Ready read(Item item) {
        if (copy(item)) {
          return into -> {};
        }
        Optional<R> reading = reading(item);
        return into -> {
          if (reading.isPresent()) {
            spans.add(item, reading.get());
          }
          points.add(item, reading, into);
        };
      }

      @Override
      public List<SpanNode> roots(List<String> notes) {
        return spans.roots(notes);
      }

      @Override
      public void span(SpanNode span) {
        points.span(span);
      }

      @Override
      public PointReader.Boot boot() {
        return points.boot();
      }
    };
  }
}
