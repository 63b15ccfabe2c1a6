package dev.kvprov.inspect.writers;

import java.util.List;

/** One writer's spans, rebuilt from its items as a command reads them. One per read. */
interface SpanReader {
  /** A reader for writers that record no spans. */
  SpanReader NONE =
      new SpanReader() {
        @Override
        public void add(Item item, Object reading) {}

        @Override
        public List<SpanNode> roots(List<String> notes) {
          return List.of();
        }
      };

  /**
   * Adds one item, in pool order.
   *
   * @param reading what the writer made of it ({@link Writer#reading}), or null
   */
  void add(Item item, Object reading);

  /**
   * The writer's top spans, their children below them, once every item is in.
   *
   * @param notes where to say what had to change to show a damaged pool (a loop of parents)
   */
  List<SpanNode> roots(List<String> notes);
}
