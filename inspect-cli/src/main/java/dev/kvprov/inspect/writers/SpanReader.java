package dev.kvprov.inspect.writers;

import java.util.List;

/**
 * One writer's spans, rebuilt from its items as a command reads them. One per read.
 *
 * @param <R> the writer's reading of an item ({@link ItemReader#reading})
 */
interface SpanReader<R> {
  /** A reader for writers that record no spans. */
  static <R> SpanReader<R> none() {
    return new SpanReader<>() {
      @Override
      public void add(Item item, R reading) {}

      @Override
      public List<SpanNode> roots(List<String> notes) {
        return List.of();
      }
    };
  }

  /** Adds one item its writer could read, in pool order. */
  void add(Item item, R reading);

  /**
   * The writer's top spans, their children below them, once every item is in.
   *
   * @param notes where to say what had to change to show a damaged pool (a loop of parents)
   */
  List<SpanNode> roots(List<String> notes);
}
