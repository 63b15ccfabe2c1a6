package dev.kvprov.agent.http;

import dev.kvprov.otel.KvprovAttributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import java.time.Duration;
import java.util.Optional;

/**
 * How a failed attempt's span ends: with a warning when another attempt follows, as an error only
 * when it was the last. A boot whose IMDS answered at the third try is healthy: its journal's
 * {@code -p err} stays empty, and the attempts that failed on the way are WARN records.
 */
public final class Attempts {
  private Attempts() {}

  /**
   * Ends {@code span}, the attempt that failed with {@code failure}.
   *
   * @param retryIn the wait before the next attempt; empty when there is none
   */
  public static void failed(Span span, String failure, Optional<Duration> retryIn) {
    if (retryIn.isPresent()) {
      span.setAttribute(
          KvprovAttributes.WARNING,
          failure + "; trying again in " + Deadline.seconds(retryIn.get()));
    } else {
      span.setStatus(StatusCode.ERROR, failure);
    }
    span.end();
  }
}
