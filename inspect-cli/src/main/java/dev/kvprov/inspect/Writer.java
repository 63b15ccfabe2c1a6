package dev.kvprov.inspect;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A program whose records kvp reads: which keys are its own, and what its items mean. Each writer
 * is one class; {@link Writers} lists them. What a command shows of a writer's records, it asks the
 * writer.
 */
abstract class Writer {
  private final String name;
  private final String colour;

  /**
   * @param name how output names it ({@code list}'s {@code writer}, {@code --writer})
   * @param colour its colour on the timeline page
   */
  Writer(String name, String colour) {
    this.name = name;
    this.colour = colour;
  }

  final String name() {
    return name;
  }

  final String colour() {
    return colour;
  }

  /** Whether a record with this key is one of its own. */
  abstract boolean owns(String key);

  /**
   * The item's fields, for {@code list --json}'s {@code event}: {@code type}, {@code name}, {@code
   * time}, {@code status}, {@code message} where it has them, plus its own; null if it has none or
   * the item cannot be read.
   */
  JsonNode event(Item item) {
    return null;
  }

  /** A fresh reader of its items into spans, for one read of a pool. */
  SpanReader spans() {
    return SpanReader.NONE;
  }

  /** A fresh reader of its items into point events and a clue to the boot time. */
  PointReader points() {
    return PointReader.NONE;
  }

  /**
   * What an item says of where it was written, for {@code export}'s resources and trace ids.
   *
   * @param vmId the VM id it names, or null
   * @param vmIdOfPool whether that id tells only the pool's VM (a report), not the writer's own
   * @param bootEpoch the boot (seconds since the epoch) its key names, or null
   */
  record Origin(String vmId, boolean vmIdOfPool, Long bootEpoch) {
    static final Origin NONE = new Origin(null, false, null);
  }

  Origin origin(Item item) {
    return Origin.NONE;
  }
}
