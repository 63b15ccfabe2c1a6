package dev.kvprov.otel;

import dev.kvprov.kvp.BootClock;
import io.opentelemetry.sdk.common.Clock;
import java.time.Instant;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * The SDK's clock, read once from the wall and then advanced only by the monotonic clock: a wall
 * clock step during boot (NTP, the host's time sync) cannot bend durations or reorder spans. It
 * also maps each timestamp to time since boot.
 */
final class BootAnchoredClock implements Clock {
  private final long anchorEpochNanos;
  private final long anchorNanoTime;
  private final long anchorSinceBootNanos; // -1 when the boot clock is unknown

  BootAnchoredClock(BootClock bootClock) {
    Instant now = Instant.now();
    this.anchorNanoTime = System.nanoTime();
    this.anchorEpochNanos = TimeUnit.SECONDS.toNanos(now.getEpochSecond()) + now.getNano();
    this.anchorSinceBootNanos = bootClock == null ? -1 : bootClock.sinceBoot().toNanos();
  }

  @Override
  public long now() {
    return anchorEpochNanos + (System.nanoTime() - anchorNanoTime);
  }

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }

  /** Nanoseconds since boot at the given SDK timestamp, if the boot clock is known. */
  OptionalLong sinceBootNanos(long epochNanos) {
    return anchorSinceBootNanos < 0
        ? OptionalLong.empty()
        : OptionalLong.of(anchorSinceBootNanos + (epochNanos - anchorEpochNanos));
  }
}
