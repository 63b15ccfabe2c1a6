package dev.kvprov.otel;

import java.io.PrintStream;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reports a failing telemetry sink once, on stderr, and counts the rest: a broken sink must never
 * take provisioning down, nor flood the console it shares with it.
 */
final class FailureReporter {
  private final PrintStream err;
  private final Map<String, AtomicLong> failures = new ConcurrentHashMap<>();

  FailureReporter(PrintStream err) {
    this.err = err;
  }

  void failure(String sink, String what) {
    AtomicLong count = failures.computeIfAbsent(sink, s -> new AtomicLong());
    if (count.getAndIncrement() == 0) {
      err.println(
          "kvprov telemetry: the "
              + sink
              + " sink failed: "
              + what
              + " (provisioning goes on; further "
              + sink
              + " failures are only counted)");
      err.flush();
    }
  }

  void failure(String sink, Throwable cause) {
    String message = cause.getMessage();
    // The message in plain words, never a class name: a file's trouble as the C library says it.
    if (cause instanceof java.io.IOException io && !(cause instanceof java.net.SocketException)) {
      failure(sink, dev.kvprov.kvp.IoErrors.reason(io));
    } else if (message != null && !message.isBlank() && !NetworkErrors.looksLikeCode(message)) {
      failure(sink, message);
    } else {
      failure(sink, NetworkErrors.describe(cause));
    }
  }

  /** Says, always, what a sink could not deliver in the end: the one loss nobody may miss. */
  void lost(String sink, String what) {
    err.println("kvprov telemetry: the " + sink + " sink lost " + what);
    err.flush();
  }

  /** Says, always, that what a sink could not deliver went to someone who will. */
  void handedOver(String sink, String what) {
    err.println("kvprov telemetry: the " + sink + " sink handed over late records: " + what);
    err.flush();
  }

  /** How many failures a sink has had. */
  long count(String sink) {
    AtomicLong count = failures.get(sink);
    return count == null ? 0 : count.get();
  }
}
