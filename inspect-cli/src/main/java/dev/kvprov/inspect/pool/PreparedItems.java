package dev.kvprov.inspect.pool;

import dev.kvprov.inspect.writers.Item;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Items of several sources read one after another, each made ready by {@code prepare} on every core
 * ({@link InPoolOrder}) and handed to its own source's sink in pool order, on the reading thread: a
 * source's results all reach its sink before the next source's visitor is made.
 */
public final class PreparedItems<T> implements AutoCloseable {
  private final AtomicReference<Consumer<T>> sink = new AtomicReference<>();
  private final InPoolOrder<T> ready;

  public PreparedItems(Function<Item, T> prepare) {
    ready = new InPoolOrder<>(prepare, result -> sink.get().accept(result));
  }

  /** The visitor for the next source, whose results go to {@code sink}. */
  public SourceVisitor next(Consumer<T> sink) {
    ready.drain(); // the previous source's last items, to its own sink
    this.sink.set(sink);
    return Items.deferred(ready::accept);
  }

  /** Hands on every result still being made, before a heading or the end. */
  public void drain() {
    ready.drain();
  }

  @Override
  public void close() {
    ready.close();
  }
}
