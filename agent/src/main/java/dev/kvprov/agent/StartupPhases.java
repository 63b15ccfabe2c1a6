package dev.kvprov.agent;

import dev.kvprov.kvp.IoErrors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a run's start-up goes, for {@code bench/breakdown.sh}: named milestones (the end of each
 * phase: picocli, the configuration, logging, telemetry...) written as wall-clock times to the file
 * the system property {@code kvprov.phases} names, when the run ends, with each thread's CPU time.
 * Off (the property unset), a milestone costs a field read. With {@code kvprov.phases.classes=true}
 * each milestone also counts the classes loaded so far, through {@code java.lang.management}: that
 * loads some 250 classes of its own at the first milestone, so such runs are for counting, not
 * timing.
 */
final class StartupPhases {
  static final String PROPERTY = "kvprov.phases";

  private static final StartupPhases RUN = run();

  private record Milestone(String name, long nanoTime, long classes) {}

  private final Path file;
  private final boolean classes;
  private final List<Milestone> milestones = new ArrayList<>();

  /** The lines of threads that ended before {@link #write}: {@link #threadCpu}'s. */
  private final StringBuilder ended = new StringBuilder();

  StartupPhases(Path file, boolean classes) {
    this.file = file;
    this.classes = classes;
  }

  private static StartupPhases run() {
    String file = System.getProperty(PROPERTY);
    return file == null
        ? null
        : new StartupPhases(Path.of(file), Boolean.getBoolean(PROPERTY + ".classes"));
  }

  /** The phase {@code name} ends now (on the main thread; another thread's step is named so). */
  static void mark(String name) {
    if (RUN != null) {
      RUN.milestone(name);
    }
  }

  /** The calling thread's CPU time so far, kept for {@link #write}: for a thread about to end. */
  static void threadCpu() {
    if (RUN != null) {
      RUN.cpuOfThisThread();
    }
  }

  /** Writes the milestones, if asked for. */
  static void write() {
    if (RUN != null) {
      RUN.writeFile();
    }
  }

  synchronized void milestone(String name) {
    long loaded =
        classes
            ? java.lang.management.ManagementFactory.getClassLoadingMXBean()
                .getTotalLoadedClassCount()
            : -1;
    milestones.add(new Milestone(name, System.nanoTime(), loaded));
  }

  synchronized void cpuOfThisThread() {
    try {
      cpu(Path.of("/proc/thread-self"), ended);
    } catch (IOException | RuntimeException e) {
      // not Linux: no per-thread times
    }
  }

  /**
   * One line per milestone: name, epoch nanoseconds, classes loaded (or -1); then each thread's CPU
   * time: {@code cpu NAME}, milliseconds, -1. Tab-separated.
   */
  synchronized void writeFile() {
    Instant now = Instant.now();
    long nanoNow = System.nanoTime();
    long epochNow = now.getEpochSecond() * 1_000_000_000L + now.getNano();
    StringBuilder text = new StringBuilder();
    for (Milestone m : milestones) {
      text.append(m.name())
          .append('\t')
          .append(epochNow - (nanoNow - m.nanoTime()))
          .append('\t')
          .append(m.classes())
          .append('\n');
    }
    // Each live thread's CPU time so far: the main thread's, the JIT compilers'...
    try (var tasks = Files.list(Path.of("/proc/self/task"))) {
      for (Path task : tasks.toList()) {
        cpu(task, text);
      }
    } catch (IOException | RuntimeException e) {
      // not Linux: no per-thread times
    }
    text.append(ended);
    // A new file, not followed through a link nor written over one, readable by its owner only:
    // the agent runs as root. Failing to write it is said in one line and changes nothing else:
    // a run that reported Ready must still exit 0 (bench/breakdown.sh notices a missing file).
    try {
      Files.writeString(
          file,
          text,
          StandardOpenOption.CREATE_NEW,
          StandardOpenOption.WRITE,
          LinkOption.NOFOLLOW_LINKS);
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    } catch (IOException e) {
      System.err.println(
          "kvprov: start-up phases not written to " + file + ": " + IoErrors.reason(e));
    } catch (RuntimeException e) {
      System.err.println("kvprov: start-up phases not written to " + file);
    }
  }

  /** {@code cpu NAME<tab>milliseconds<tab>-1}, from {@code /proc}'s clock ticks (10 ms). */
  private static void cpu(Path task, StringBuilder text) throws IOException {
    String stat = Files.readString(task.resolve("stat"));
    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    text.append("cpu ").append(name).append('\t').append(ticks * 10).append("\t-1\n");
  }
}
