package dev.kvprov.inspect.spans;

import dev.kvprov.inspect.pool.InputKind;
import dev.kvprov.inspect.pool.Items;
import dev.kvprov.inspect.pool.PoolSource;
import dev.kvprov.inspect.pool.VmInput;
import dev.kvprov.kvp.IoErrors;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * Reads a fleet's VMs into {@link VmSummary summaries}, several at once on worker threads (each VM
 * is read whole on one), and hands them on in the inputs' order on the calling thread. At most
 * twice as many VMs as there are workers are in flight: memory stays that of a few boots.
 */
public final class FleetReading {
  private FleetReading() {}

  /** At most 4, as for one big pool: more gain nothing on the machines kvp runs on. */
  private static int workers() {
    int cores = Runtime.getRuntime().availableProcessors();
    return Integer.getInteger("kvp.workers", Math.min(4, cores));
  }

  /**
   * Each input's summary to {@code sink}, in order; one that cannot be read is {@code unreadable}.
   */
  public static void each(List<VmInput> inputs, Consumer<VmSummary> sink) {
    int workers = workers();
    if (workers <= 1 || inputs.size() <= 1) {
      inputs.forEach(input -> sink.accept(read(input)));
      return;
    }
    ExecutorService pool =
        Executors.newFixedThreadPool(
            workers,
            r -> {
              Thread t = new Thread(r, "kvp-fleet");
              t.setDaemon(true);
              return t;
            });
    try {
      Deque<Future<VmSummary>> inFlight = new ArrayDeque<>();
      for (VmInput input : inputs) {
        inFlight.add(pool.submit(() -> read(input)));
        if (inFlight.size() >= 2 * workers) {
          sink.accept(next(inFlight));
        }
      }
      while (!inFlight.isEmpty()) {
        sink.accept(next(inFlight));
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static VmSummary next(Deque<Future<VmSummary>> inFlight) {
    try {
      return inFlight.poll().get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading the fleet", e);
    } catch (ExecutionException e) {
      // a defect on a worker is the reading thread's: the command's handler says it in one line
      throw e.getCause() instanceof RuntimeException r
          ? r
          : new IllegalStateException(e.getCause());
    }
  }

  /** One VM, read whole; its spans are dropped once summed up. */
  static VmSummary read(VmInput input) {
    BootSection boot =
        BootSection.of(
            new PoolSource(input.file().toString(), PoolSource.Kind.POOL_FILE, input.file()));
    Items items = new Items(boot::add);
    try {
      input.scan(items);
      items.finish();
    } catch (IOException e) {
      return VmSummary.unreadable(
          input, e instanceof InputKind.WrongInput ? e.getMessage() : IoErrors.reason(e));
    }
    return VmSummary.of(input, boot);
  }
}
