package dev.kvprov.inspect.writers;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One read of a pool's items by every writer's reader ({@link ItemReader.Pass}): what {@link
 * SpanForest} and {@link PointEvents} of one boot share, so that each item is read once for both.
 */
public final class ItemPasses {
  private final Map<Writer, ItemReader.Pass> passes = new ConcurrentHashMap<>();

  /** Reads an item, on any thread; the result is to be added in pool order. */
  public ItemReader.Ready read(Item item) {
    return pass(item.writer()).read(item);
  }

  ItemReader.Pass pass(Writer writer) {
    return passes.computeIfAbsent(writer, w -> w.reader().pass());
  }

  /** The passes of writers that had items, in {@link Writers}' order. */
  List<ItemReader.Pass> inOrder() {
    List<ItemReader.Pass> all = new ArrayList<>();
    for (Writer writer : Writers.all()) {
      ItemReader.Pass pass = passes.get(writer);
      if (pass != null) {
        all.add(pass);
      }
    }
    return all;
  }
}
