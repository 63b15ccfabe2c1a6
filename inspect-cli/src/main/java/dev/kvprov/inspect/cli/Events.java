package dev.kvprov.inspect.cli;

import java.util.Optional;

/** Items' events, each as its writer reads it. */
final class Events {
  private Events() {}

  /** The event of an item, as its writer reads it; empty if it has none. */
  static Optional<Event> of(Item item) {
    return item.writer().event(item);
  }
}
