package dev.kvprov.agent.provision;

import dev.kvprov.agent.os.CommandResult;
import dev.kvprov.agent.os.CommandRunner;
import dev.kvprov.kvp.BootClock;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

/**
 * The boot's milestones as systemd saw them, so that "where did the time before kvprov go" has an
 * answer in the pool, from the host side too: firmware and loader (before the kernel), the kernel,
 * the initrd, userspace, network-online.target reached, sshd started (when it already has), kvprov
 * started, Ready posted. Times are since the kernel started, systemd's monotonic clock (the
 * manager's {@code *TimestampMonotonic} properties, as {@code systemd-analyze} reads them). Each is
 * an event of the run's span named {@code boot milestone: NAME}, at its own time.
 */
final class BootMilestones {
  /** One milestone: its time since the kernel started (before it: negative). */
  record Milestone(String name, Duration sinceBoot) {}

  static final String EVENT_PREFIX = "boot milestone: ";

  private static final Duration SYSTEMCTL_TIMEOUT = Duration.ofSeconds(2);

  private BootMilestones() {}

  /**
   * The milestones being asked for: systemd's answer comes on a thread of its own, beside the run's
   * steps, since only the run's span needs it, and only by its end.
   */
  static final class Pending {
    private final FutureTask<List<Milestone>> systemd;

    private Pending(FutureTask<List<Milestone>> systemd) {
      this.systemd = systemd;
    }

    /**
     * systemd's milestones and this process's start, as the run's span's events: waits for
     * systemd's answer, which its two {@code systemctl} calls' timeouts bound.
     */
    void record(Span span) throws InterruptedException {
      List<Milestone> seen = new ArrayList<>(answer());
      processStart().ifPresent(seen::add);
      if (seen.isEmpty()) {
        return;
      }
      try {
        // this process's own clock: /proc/uptime is the same boot whatever --root says
        BootMilestones.record(span, seen, BootClock.read(Path.of("/")).sinceBoot());
      } catch (IOException e) {
        // no boot clock: the milestones cannot be placed; the run goes on without them
      }
    }

    private List<Milestone> answer() throws InterruptedException {
      try {
        return systemd.get();
      } catch (ExecutionException e) {
        return List.of(); // a defect in the asking loses the milestones, never the run
      }
    }
  }

  /**
   * Starts asking systemd of this boot, when {@code systemd} runs it, in the current trace context
   * (the {@code exec systemctl} spans stay children of the run's span).
   */
  static Pending start(boolean systemd, CommandRunner runner) {
    if (!systemd) {
      FutureTask<List<Milestone>> none = new FutureTask<>(List::of);
      none.run();
      return new Pending(none);
    }
    FutureTask<List<Milestone>> asked =
        new FutureTask<>(Context.current().wrap(() -> ofSystemd(runner)));
    Thread thread = new Thread(asked, "kvprov-milestones");
    thread.setDaemon(true); // an answer not waited for never holds the JVM
    thread.start();
    return new Pending(asked);
  }

  /**
   * What systemd says of this boot: nothing when it does not answer in time, or has no {@code
   * systemctl}.
   */
  static List<Milestone> ofSystemd(CommandRunner runner) throws InterruptedException {
    try {
      CommandResult manager =
          runner.run(
              List.of(
                  "systemctl",
                  "show",
                  "-p",
                  "FirmwareTimestampMonotonic",
                  "-p",
                  "LoaderTimestampMonotonic",
                  "-p",
                  "InitRDTimestampMonotonic",
                  "-p",
                  "UserspaceTimestampMonotonic"),
              SYSTEMCTL_TIMEOUT);
      CommandResult units =
          runner.run(
              List.of(
                  "systemctl",
                  "show",
                  "-p",
                  "Id",
                  "-p",
                  "ActiveEnterTimestampMonotonic",
                  "network-online.target",
                  "ssh.service",
                  "sshd.service"),
              SYSTEMCTL_TIMEOUT);
      if (manager.exitCode() != 0) {
        return List.of();
      }
      return parse(manager.stdout(), units.exitCode() == 0 ? units.stdout() : "");
    } catch (IOException e) {
      return List.of(); // no systemctl: nothing to say
    }
  }

  /**
   * The milestones in {@code systemctl show}'s output: the manager's properties, then the units'
   * blocks ({@code Id=…}, {@code ActiveEnterTimestampMonotonic=…}). A zero means "did not happen
   * (yet)", or not measured (firmware and loader on a VM without EFI's numbers).
   */
  static List<Milestone> parse(String manager, String units) {
    Map<String, Long> m = properties(manager);
    List<Milestone> milestones = new ArrayList<>();
    // firmware and loader are counted back from the kernel's start
    positive(m, "FirmwareTimestampMonotonic").ifPresent(us -> milestones.add(at("firmware", -us)));
    positive(m, "LoaderTimestampMonotonic").ifPresent(us -> milestones.add(at("loader", -us)));
    milestones.add(at("kernel", 0));
    positive(m, "InitRDTimestampMonotonic").ifPresent(us -> milestones.add(at("initrd", us)));
    positive(m, "UserspaceTimestampMonotonic").ifPresent(us -> milestones.add(at("userspace", us)));
    String id = null;
    java.util.Set<String> named = new java.util.HashSet<>();
    for (String line : units.split("\n")) {
      if (line.startsWith("Id=")) {
        id = line.substring(3).strip();
      } else if (line.startsWith("ActiveEnterTimestampMonotonic=") && id != null) {
        long us = number(line.substring(line.indexOf('=') + 1));
        String name = id.equals("network-online.target") ? "network-online" : "sshd";
        // sshd.service is ssh.service under another name on Debian: one sshd
        if (us > 0 && named.add(name)) {
          milestones.add(at(name, us));
        }
      }
    }
    return milestones;
  }

  /**
   * This process's start, since the kernel started, to the clock tick (the kernel's {@code
   * starttime} in {@code /proc/self/stat}; the JDK's own start instant is rounded to a second).
   */
  static java.util.Optional<Milestone> processStart() {
    try {
      String stat = Files.readString(java.nio.file.Path.of("/proc/self/stat"));
      // after the command's name in parentheses, which may hold spaces: field 22 is starttime
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      long ticks = Long.parseLong(fields[19]);
      return java.util.Optional.of(
          new Milestone("kvprov", Duration.ofNanos(ticks * 1_000_000_000L / CLOCK_TICKS)));
    } catch (IOException | RuntimeException e) {
      return java.util.Optional.empty(); // not Linux: no such milestone
    }
  }

  /** USER_HZ: the unit of /proc's process times, 100 on every Linux architecture kvprov runs on. */
  private static final long CLOCK_TICKS = 100;

  /** Records each milestone as an event of {@code span}, at its own wall-clock time. */
  static void record(Span span, List<Milestone> milestones, Duration sinceBootNow) {
    Instant now = Instant.now();
    for (Milestone milestone : milestones) {
      Instant at = now.minus(sinceBootNow.minus(milestone.sinceBoot()));
      span.addEvent(
          EVENT_PREFIX + milestone.name(),
          at.getEpochSecond() * 1_000_000_000L + at.getNano(),
          TimeUnit.NANOSECONDS);
    }
  }

  private static Milestone at(String name, long micros) {
    return new Milestone(name, Duration.ofNanos(micros * 1000));
  }

  private static Map<String, Long> properties(String text) {
    Map<String, Long> values = new LinkedHashMap<>();
    for (String line : text.split("\n")) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        values.put(line.substring(0, eq).strip(), number(line.substring(eq + 1)));
      }
    }
    return values;
  }

  private static java.util.Optional<Long> positive(Map<String, Long> values, String key) {
    Long v = values.get(key);
    return v != null && v > 0 ? java.util.Optional.of(v) : java.util.Optional.empty();
  }

  private static long number(String text) {
    try {
      return Long.parseLong(text.strip());
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
