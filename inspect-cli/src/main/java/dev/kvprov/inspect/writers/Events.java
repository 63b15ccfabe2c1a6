package dev.kvprov.inspect.writers;

import java.util.Optional;

/** Items' events, each as its writer reads it. */
public final class Events {
  private Events() {}

  /** The event of an item, as its writer reads it; empty if it has none. */
  public static Optional<Event> of(Item item) {
    return item.writer().reader().event(item);
  }
}
