package dev.kvprov.kvp;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.regex.Pattern;

/**
 * When this boot began, which boot it is, and how long ago it began, read from {@code /proc} under
 * a root directory (so tests and offline tools can point it at a fake tree).
 *
 * <p>{@link #sinceBoot()} reads {@code /proc/uptime} once and then advances with the JVM's
 * monotonic clock, so a wall-clock step during boot (NTP, the host's time sync) cannot make a
 * duration negative or wrong.
 */
public final class BootClock {
  private static final Pattern BOOT_ID =
      Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

  private final Instant bootTime;
  private final String bootId;
  private final long uptimeNanosAtRead;
  private final long nanoTimeAtRead;

  private BootClock(Instant bootTime, String bootId, long uptimeNanos, long nanoTime) {
    this.bootTime = bootTime;
    this.bootId = bootId;
    this.uptimeNanosAtRead = uptimeNanos;
    this.nanoTimeAtRead = nanoTime;
  }

  /** This machine's boot clock, from {@code /proc}. */
  public static BootClock system() throws IOException {
    return read(Path.of("/"));
  }

  /**
   * Reads {@code proc/stat} ({@code btime}), {@code proc/uptime} and {@code
   * proc/sys/kernel/random/boot_id} under {@code root}.
   *
   * @throws IOException if a file is missing or does not hold what the kernel writes there
   */
  public static BootClock read(Path root) throws IOException {
    requireNonNull(root, "root");
    long nanoTime = System.nanoTime();
    Path stat = root.resolve("proc/stat");
    Instant bootTime = null;
    for (String line : Files.readAllLines(stat)) {
      if (line.startsWith("btime ")) {
        bootTime = Instant.ofEpochSecond(parseLong(line.substring(6).trim(), stat, "btime"));
      }
    }
    if (bootTime == null) {
      throw new IOException(stat + " has no btime line");
    }
    Path uptime = root.resolve("proc/uptime");
    String[] fields = Files.readString(uptime).trim().split("\\s+");
    long uptimeNanos;
    try {
      uptimeNanos = Math.round(Double.parseDouble(fields[0]) * 1e9);
    } catch (NumberFormatException e) {
      throw new IOException(uptime + ": not a number of seconds: " + fields[0], e);
    }
    if (uptimeNanos < 0) {
      throw new IOException(uptime + ": negative uptime " + fields[0]);
    }
    Path bootIdFile = root.resolve("proc/sys/kernel/random/boot_id");
    String bootId = Files.readString(bootIdFile).trim().toLowerCase(java.util.Locale.ROOT);
    if (!BOOT_ID.matcher(bootId).matches()) {
      throw new IOException(bootIdFile + ": not a boot id: " + bootId);
    }
    return new BootClock(bootTime, bootId, uptimeNanos, nanoTime);
  }

  private static long parseLong(String text, Path file, String field) throws IOException {
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new IOException(file + ": " + field + " is not a number: " + text, e);
    }
  }

  /** The wall-clock time this boot began ({@code btime}, whole seconds). */
  public Instant bootTime() {
    return bootTime;
  }

  /** The kernel's random id of this boot, lower case. */
  public String bootId() {
    return bootId;
  }

  /** Time since boot now, monotonic: never goes back, unaffected by wall-clock steps. */
  public Duration sinceBoot() {
    return Duration.ofNanos(uptimeNanosAtRead + (System.nanoTime() - nanoTimeAtRead));
  }

  @Override
  public String toString() {
    return "BootClock[bootTime=" + bootTime + ", bootId=" + bootId + "]";
  }
}
