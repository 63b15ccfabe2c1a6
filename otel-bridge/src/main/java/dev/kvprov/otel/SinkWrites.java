package dev.kvprov.otel;

import io.opentelemetry.sdk.common.CompletableResultCode;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;

/**
 * What the span and the log exporter share: each item is written to the {@link KvpSink} as it
 * comes; a failed write fails the result (the sink reports it once); nothing is written after
 * shutdown, and shutting down flushes once. Never throws.
 */
final class SinkWrites<T> {
  private final KvpSink sink;
  private final Predicate<T> write;
  private final AtomicBoolean shutdown = new AtomicBoolean();

  private final boolean closesSink;

  SinkWrites(KvpSink sink, Predicate<T> write, boolean closesSink) {
    this.sink = sink;
    this.write = write;
    this.closesSink = closesSink;
  }

  CompletableResultCode export(Collection<T> items) {
    if (shutdown.get()) {
      return CompletableResultCode.ofFailure();
    }
    boolean ok = true;
    for (T item : items) {
      try {
        ok &= write.test(item);
      } catch (RuntimeException e) {
        sink.failed(e);
        ok = false;
      }
    }
    return ok ? CompletableResultCode.ofSuccess() : CompletableResultCode.ofFailure();
  }

  CompletableResultCode flush() {
    return sink.flush() ? CompletableResultCode.ofSuccess() : CompletableResultCode.ofFailure();
  }

  CompletableResultCode shutdown() {
    if (!shutdown.compareAndSet(false, true)) {
      return CompletableResultCode.ofSuccess();
    }
    if (!closesSink) {
      return flush();
    }
    // What still waits for a lock held elsewhere is given one more wait, then reported lost.
    sink.close();
    return sink.flush() ? CompletableResultCode.ofSuccess() : CompletableResultCode.ofFailure();
  }
}
