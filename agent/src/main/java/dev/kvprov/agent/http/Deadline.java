package dev.kvprov.agent.http;

import java.time.Duration;

/** A point in monotonic time by which work must be done (wall-clock steps do not move it). */
public final class Deadline {
  private final long startNanos;
  private final long deadlineNanos;
  private final Duration total;

  private Deadline(Duration total) {
    this.total = total;
    this.startNanos = System.nanoTime();
    this.deadlineNanos = startNanos + total.toNanos();
  }

  public static Deadline after(Duration total) {
    return new Deadline(total);
  }

  public Duration remaining() {
    return Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()));
  }

  public Duration total() {
    return total;
  }

  public boolean expired() {
    return deadlineNanos - System.nanoTime() <= 0;
  }

  /** {@code d}, or what is left if that is less. */
  public Duration cap(Duration d) {
    Duration left = remaining();
    return d.compareTo(left) < 0 ? d : left;
  }

  /** How long since the deadline was set. */
  public Duration elapsed() {
    return Duration.ofNanos(System.nanoTime() - startNanos);
  }

  /**
   * How long one attempt may take, headers and body: {@code perAttempt}, cut to what is left of the
   * budget but not below a second (a sliver of a budget would only fail the attempt); the whole of
   * {@code perAttempt} once the budget is spent, for the last attempt made at its end (see {@link
   * Backoff#waitBefore}). So an exchange never outlives the budget by more than {@code perAttempt}.
   */
  public Duration forAttempt(Duration perAttempt) {
    Duration full = perAttempt.isZero() ? Duration.ofMillis(1) : perAttempt;
    if (expired()) {
      return full;
    }
    Duration floor = full.compareTo(MIN_ATTEMPT) < 0 ? full : MIN_ATTEMPT;
    Duration left = cap(full);
    return left.compareTo(floor) < 0 ? floor : left;
  }

  private static final Duration MIN_ATTEMPT = Duration.ofSeconds(1);

  /** {@code "after N attempt(s) in 12.3 s (budget 300 s)"}, for a report that gives up. */
  public String spent(int attempts) {
    return String.format(
        java.util.Locale.ROOT,
        "after %d attempt(s) in %.1f s (budget %s)",
        attempts,
        elapsed().toMillis() / 1000.0,
        seconds(total));
  }

  /** {@code "3 s"}, {@code "0.4 s"}: a limit as a report says it. */
  static String seconds(Duration d) {
    long millis = d.toMillis();
    return millis % 1000 == 0
        ? millis / 1000 + " s"
        : String.format(java.util.Locale.ROOT, "%.1f s", millis / 1000.0);
  }

  /**
   * Sleeps for {@code wait}, to the nanosecond: a wait cut to end with the deadline ends past it.
   */
  public static void sleep(Duration wait) throws InterruptedException {
    java.util.concurrent.TimeUnit.NANOSECONDS.sleep(wait.toNanos());
  }
}
