package dev.kvprov.inspect;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Items made ready on every core and handed on in pool order. The pool is read, and its pieces
 * grouped, on the calling thread; what each item costs on its own (joining a writer's pieces,
 * decoding its event, formatting its lines) runs on worker threads, a batch at a time; the results
 * come back to the calling thread batch after batch, in the order the items were read. At most a
 * few batches are on their way at once, so memory stays flat however large the pool.
 *
 * <p>With one processor everything runs on the calling thread, in the same order.
 */
final class InPoolOrder<T> implements AutoCloseable {
  /**
   * Items per batch: enough to outweigh handing a batch over, few enough to keep memory small.
   * Items in flight outlive young collections and are copied by each: 128 a batch and one batch
   * more than the workers took a 100,000-record list's collections from 215 to 78 ms in an 8 MB
   * young generation (docs/performance.md).
   */
  static final int BATCH = 128;

  private final Function<Item, T> prepare;
  private final Consumer<T> sink;
  private final ExecutorService workers;
  private final int maxInFlight;
  private final ArrayDeque<Future<List<T>>> inFlight = new ArrayDeque<>();
  private List<Supplier<Item>> batch = new ArrayList<>(BATCH);

  /**
   * @param prepare what each item costs on its own, on any thread; a null result is not handed on
   * @param sink what is done with the results, in pool order, on the calling thread
   */
  InPoolOrder(Function<Item, T> prepare, Consumer<T> sink) {
    this(prepare, sink, Runtime.getRuntime().availableProcessors());
  }

  InPoolOrder(Function<Item, T> prepare, Consumer<T> sink, int processors) {
    this.prepare = prepare;
    this.sink = sink;
    // Daemon threads: a run that ends (or is stopped) never waits for them.
    this.workers =
        processors < 2
            ? null
            : Executors.newFixedThreadPool(
                processors,
                task -> {
                  Thread t = new Thread(task, "kvp-decode");
                  t.setDaemon(true);
                  return t;
                });
    this.maxInFlight = Math.max(processors, 1) + 1;
  }

  /** One item, read: it is made ready and handed on in its turn. */
  void accept(Supplier<Item> item) {
    if (workers == null) {
      give(prepare.apply(item.get()));
      return;
    }
    batch.add(item);
    if (batch.size() == BATCH) {
      submit();
    }
  }

  /** Hands on everything accepted so far (at the end of a source, before the next one starts). */
  void drain() {
    if (workers == null) {
      return;
    }
    if (!batch.isEmpty()) {
      submit();
    }
    while (!inFlight.isEmpty()) {
      handOn(inFlight.poll());
    }
  }

  /** Lets the worker threads go; what was not drained is dropped. */
  @Override
  public void close() {
    if (workers != null) {
      workers.shutdownNow();
    }
  }

  private void submit() {
    List<Supplier<Item>> items = batch;
    batch = new ArrayList<>(BATCH);
    inFlight.add(
        workers.submit(
            () -> {
              List<T> ready = new ArrayList<>(items.size());
              for (Supplier<Item> item : items) {
                ready.add(prepare.apply(item.get()));
              }
              return ready;
            }));
    while (inFlight.size() > maxInFlight) {
      handOn(inFlight.poll());
    }
  }

  private void handOn(Future<List<T>> ready) {
    List<T> results;
    try {
      results = ready.get();
    } catch (ExecutionException e) {
      // A defect on a worker is the command's defect: raised here, as if it had happened here.
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException(cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading the pool", e);
    }
    results.forEach(this::give);
  }

  private void give(T result) {
    if (result != null) {
      sink.accept(result);
    }
  }
}
