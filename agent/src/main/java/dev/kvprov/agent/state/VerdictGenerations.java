package dev.kvprov.agent.state;

import dev.kvprov.agent.os.AtomicFiles;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.OptionalLong;

/**
 * Which run's verdict is the newest: each {@code PROVISIONING_REPORT} this machine writes first
 * takes the next number ({@code verdict-generation} in the state directory), and a late writer (the
 * process that writes a report after its run ended, once a held pool is free) writes it only while
 * no later number has been taken. A run's report can reach the pool after a newer run's (both
 * waited for the same lock); it must never replace it.
 *
 * <p>The number is taken, and compared before a late write, under a lock of its own ({@code
 * verdict-generation.lock}), held only for that and for the write itself: a run takes its number
 * before it writes its report, so a late writer that finds its number still the newest under the
 * lock writes before the newer report does, and one that finds a newer number writes nothing.
 */
public final class VerdictGenerations {
  /** The newest number taken, in the state directory. */
  public static final String FILE = "verdict-generation";

  static final String LOCK = "verdict-generation.lock";

  /** The longest anyone waits for the lock; its holders keep it for one write. */
  private static final Duration LOCK_WAIT = Duration.ofSeconds(5);

  /** One holder per JVM at a time: a file lock is the process's, not the thread's. */
  private static final Object IN_PROCESS = new Object();

  private final Path directory;
  private OptionalLong taken = OptionalLong.empty();

  private VerdictGenerations(Path directory) {
    this.directory = directory;
  }

  /** The numbers kept in {@code stateDirectory}. */
  public static VerdictGenerations in(Path stateDirectory) {
    return new VerdictGenerations(stateDirectory);
  }

  public Path directory() {
    return directory;
  }

  /**
   * Takes the next number for a report about to be written.
   *
   * @throws IOException when the number cannot be kept (a read-only or full state directory): the
   *     report is written all the same, and this run's late writer, if it needs one, writes as if
   *     its report were the newest
   */
  public synchronized long take() throws IOException {
    taken = OptionalLong.empty();
    long next =
        locked(
            () -> {
              long n = current() + 1;
              AtomicFiles.write(directory.resolve(FILE), n + "\n", "rw-r--r--", -1, -1);
              return n;
            });
    taken = OptionalLong.of(next);
    return next;
  }

  /** The number this process took last, if it took one. */
  public synchronized OptionalLong taken() {
    return taken;
  }

  /**
   * Runs {@code write} under the lock unless a number newer than {@code generation} was taken.
   *
   * @return false if a newer verdict supersedes this one (nothing was written)
   * @throws IOException from {@code write}, or when the lock or the number cannot be had
   */
  public boolean writeUnlessSuperseded(long generation, Write write) throws IOException {
    return locked(
        () -> {
          if (current() > generation) {
            return false;
          }
          write.run();
          return true;
        });
  }

  /** The newest number taken; 0 if none was ever taken. */
  public long current() throws IOException {
    String text;
    try {
      text = Files.readString(directory.resolve(FILE)).strip();
    } catch (NoSuchFileException e) {
      return 0;
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new IOException(directory.resolve(FILE) + " holds no number: " + abbreviated(text));
    }
  }

  /** What the state directory's lock guards. */
  @FunctionalInterface
  public interface Write {
    void run() throws IOException;
  }

  private interface Locked<T> {
    T run() throws IOException;
  }

  private <T> T locked(Locked<T> action) throws IOException {
    synchronized (IN_PROCESS) {
      Files.createDirectories(directory);
      try (FileChannel channel =
          FileChannel.open(
              directory.resolve(LOCK),
              java.util.Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE),
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r--r--")))) {
        try (FileLock lock = acquire(channel)) {
          return action.run();
        }
      }
    }
  }

  private FileLock acquire(FileChannel channel) throws IOException {
    long deadline = System.nanoTime() + LOCK_WAIT.toNanos();
    while (true) {
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null;
      }
      if (lock != null) {
        return lock;
      }
      if (System.nanoTime() > deadline) {
        throw new IOException(
            directory.resolve(LOCK) + " stayed locked for " + LOCK_WAIT.toSeconds() + " s");
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while waiting for " + directory.resolve(LOCK));
      }
    }
  }

  private static String abbreviated(String text) {
    String cut = text.length() > 40 ? text.substring(0, 40) + "…" : text;
    return "'" + cut.replaceAll("\\p{Cntrl}", "?") + "'";
  }
}
