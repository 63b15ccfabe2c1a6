package dev.kvprov.agent.http;

import java.time.Duration;

/** A point in monotonic time by which work must be done (wall-clock steps do not move it). */
public final class Deadline {
  private final long deadlineNanos;
  private final Duration total;

  private Deadline(Duration total) {
    this.total = total;
    this.deadlineNanos = System.nanoTime() + total.toNanos();
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
}
