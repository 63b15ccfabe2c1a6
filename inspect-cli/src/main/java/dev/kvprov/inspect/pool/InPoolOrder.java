package dev.kvprov.inspect.pool;

import dev.kvprov.inspect.writers.Item;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
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
 * <p>With one processor, or {@code -Dkvp.workers=0}, or when no thread can be started (a process
 * limit), everything runs on the calling thread, in the same order.
 */
final class InPoolOrder<T> implements AutoCloseable {
  /**
   * Items per batch: enough to outweigh handing a batch over, few enough to keep memory small.
   * Items in flight outlive young collections and are copied by each: 128 a batch and one batch
   * more than the workers took a 100,000-record list's collections from 215 to 78 ms in an 8 MB
   * young generation (docs/performance.md).
   */
  static final int BATCH = 128;

  /**
   * Workers at most: one thread reads the pool and keeps a few busy; more would only hold more
   * items in flight (and threads), with nothing to do.
   */
  static final int MAX_WORKERS = 4;

  private final Function<Item, T> prepare;
  private final Consumer<T> sink;
  private ExecutorService workers;
  private final int maxInFlight;
  private final ArrayDeque<Future<Ready<T>>> inFlight = new ArrayDeque<>();
  private List<Supplier<Item>> batch = new ArrayList<>(BATCH);

  /**
   * A batch made ready: its results, up to the item whose preparation failed, and that failure. The
   * items before a defect are still shown, so that the last one points at the culprit.
   */
  private record Ready<T>(List<T> results, Throwable failure) {}

  /**
   * @param prepare what each item costs on its own, on any thread; a null result is not handed on
   * @param sink what is done with the results, in pool order, on the calling thread
   */
  InPoolOrder(Function<Item, T> prepare, Consumer<T> sink) {
    this(
        prepare,
        sink,
        Integer.getInteger(
            "kvp.workers", Math.min(Runtime.getRuntime().availableProcessors(), MAX_WORKERS)));
  }

  /**
   * @param workers worker threads; below 2, none (the calling thread does everything: on one core a
   *     worker would only take turns with it)
   */
  InPoolOrder(Function<Item, T> prepare, Consumer<T> sink, int workers) {
    this(prepare, sink, workers, daemons());
  }

  InPoolOrder(Function<Item, T> prepare, Consumer<T> sink, int workers, ThreadFactory threads) {
    this.prepare = prepare;
    this.sink = sink;
    this.workers = workers < 2 ? null : Executors.newFixedThreadPool(workers, threads);
    this.maxInFlight = Math.max(workers, 1) + 1;
  }

  /** Daemon threads: a run that ends (or is stopped) never waits for them. */
  private static ThreadFactory daemons() {
    AtomicInteger started = new AtomicInteger();
    return task -> {
      Thread t = new Thread(task, "kvp-decode-" + started.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
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
    if (workers == null) {
      items.forEach(this::accept);
      return;
    }
    Future<Ready<T>> ready;
    try {
      ready = workers.submit(() -> prepare(items));
    } catch (OutOfMemoryError | RejectedExecutionException e) {
      // No thread could be started (a limit on processes): this thread does the work from here
      // on, after the batches already on their way.
      close();
      workers = null;
      while (!inFlight.isEmpty()) {
        handOn(inFlight.poll());
      }
      items.forEach(this::accept);
      return;
    }
    inFlight.add(ready);
    while (inFlight.size() > maxInFlight) {
      handOn(inFlight.poll());
    }
  }

  private Ready<T> prepare(List<Supplier<Item>> items) {
    List<T> results = new ArrayList<>(items.size());
    try {
      for (Supplier<Item> item : items) {
        results.add(prepare.apply(item.get()));
      }
    } catch (RuntimeException | Error e) {
      return new Ready<>(results, e);
    }
    return new Ready<>(results, null);
  }

  private void handOn(Future<Ready<T>> future) {
    Ready<T> ready;
    try {
      ready = future.get();
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause()); // prepare() returns every failure
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading the pool", e);
    }
    ready.results().forEach(this::give);
    // A defect on a worker is the command's defect: raised here, as if it had happened here.
    if (ready.failure() instanceof RuntimeException r) {
      throw r;
    }
    if (ready.failure() instanceof Error error) {
      throw error;
    }
  }

  private void give(T result) {
    if (result != null) {
      sink.accept(result);
    }
  }
}
