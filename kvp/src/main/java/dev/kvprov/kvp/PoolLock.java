package dev.kvprov.kvp;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.System.Logger.Level;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An open pool file held under both lock families that writers use on Linux: BSD {@code flock}
 * (cloud-init, azure-init) taken first, then the POSIX {@code fcntl} lock (hv_kvp_daemon), released
 * in reverse order on {@link #close()}.
 *
 * <p>POSIX locks belong to the process, and closing <em>any</em> descriptor of the file drops them
 * all. So within this JVM, every use of one pool file, from opening its channel to closing it, is
 * serialized by an in-process lock keyed by the file's real path, and a thread may not nest a
 * second use inside the first; the file is never opened or closed by this module outside it.
 */
final class PoolLock implements AutoCloseable {
  /**
   * The logger, made when first used: System.getLogger loads some forty classes of the JDK's
   * logging bootstrap, which a pool read that logs nothing (every kvp run) need not pay for.
   */
  private static final class Log {
    static final System.Logger LOG = System.getLogger(PoolLock.class.getName());
  }

  private static final ConcurrentHashMap<Path, ReentrantLock> IN_PROCESS =
      new ConcurrentHashMap<>();
  private static final ConcurrentHashMap<Path, Path> IDENTITIES = new ConcurrentHashMap<>();
  private static final ConcurrentHashMap<Path, byte[]> NATIVE_PATHS = new ConcurrentHashMap<>();
  private static final java.nio.charset.Charset NATIVE_ENCODING =
      java.nio.charset.Charset.forName(
          System.getProperty("sun.jnu.encoding", java.nio.charset.Charset.defaultCharset().name()));
  private static final AtomicBoolean FALLBACK_REPORTED = new AtomicBoolean();
  private static final long MAX_POLL_MILLIS = 20;

  private final ReentrantLock inProcess;
  private final FileChannel channel;
  private final int flockFd;
  private final FileLock fcntlLock;

  private PoolLock(ReentrantLock inProcess, FileChannel channel, int flockFd, FileLock fcntlLock) {
    this.inProcess = inProcess;
    this.channel = channel;
    this.flockFd = flockFd;
    this.fcntlLock = fcntlLock;
  }

  /** Whether {@code flock} is taken too, or only the {@code fcntl} lock (native code missing). */
  static boolean flockAvailable() {
    return LibC.isAvailable();
  }

  /**
   * Opens {@code path} with {@code options} and takes both locks, waiting at most {@code timeout}
   * in all.
   *
   * @param shared take shared (read) locks; the channel must then be opened for reading
   * @throws PoolLockTimeoutException if a lock stays held by someone else past the timeout
   */
  static PoolLock acquire(
      Path path,
      Set<? extends OpenOption> options,
      FileAttribute<?>[] createAttributes,
      boolean shared,
      Duration timeout)
      throws IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    ReentrantLock inProcess = IN_PROCESS.computeIfAbsent(identity(path), p -> new ReentrantLock());
    if (inProcess.isHeldByCurrentThread()) {
      // A nested open and close of the same file would drop the outer operation's fcntl lock.
      throw new IllegalStateException(
          "the pool "
              + path
              + " is already in use by this thread (a pool operation inside a scan visitor?);"
              + " collect what you need during the scan and act on it afterwards");
    }
    try {
      if (!inProcess.tryLock(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
        throw new PoolLockTimeoutException(
            path, timeout, "another thread of this process is using the pool");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for the lock on " + path);
    }
    FileChannel channel = null;
    int fd = -1;
    try {
      channel = FileChannel.open(path, options, createAttributes);
      if (LibC.isAvailable()) {
        fd = LibC.openForLock(nativePath(path));
        int operation = shared ? LibC.LOCK_SH : LibC.LOCK_EX;
        int lockFd = fd;
        poll(
            () -> LibC.tryFlock(lockFd, operation),
            deadline,
            path,
            timeout,
            "a flock holder (cloud-init, azure-init or libazureinit-kvp) keeps it");
      } else if (FALLBACK_REPORTED.compareAndSet(false, true)) {
        Log.LOG.log(
            Level.WARNING,
            "kvp: native flock unavailable ({0}); taking only the fcntl lock, so cloud-init and"
                + " azure-init writers are not excluded",
            LibC.unavailableReason());
      }
      FileChannel lockChannel = channel;
      FileLock[] taken = new FileLock[1];
      poll(
          () -> (taken[0] = lockChannel.tryLock(0, Long.MAX_VALUE, shared)) != null,
          deadline,
          path,
          timeout,
          "an fcntl holder (hv_kvp_daemon or libazureinit-kvp) keeps it");
      return new PoolLock(inProcess, channel, fd, taken[0]);
    } catch (IOException | RuntimeException e) {
      closeQuietly(channel, fd, e);
      inProcess.unlock();
      throw e;
    }
  }

  /**
   * The path every alias of the file resolves to (symbolic links, {@code ..}), so that all uses of
   * one file in this process share one in-process lock. A file not created yet is named through its
   * directory's real path.
   */
  private static Path identity(Path path) throws IOException {
    Path absolute = path.toAbsolutePath();
    Path known = IDENTITIES.get(absolute);
    if (known != null) {
      return known;
    }
    try {
      Path real = absolute.toRealPath();
      // Resolving takes a system call per path component; a pool's links do not move under a
      // running program, so the answer is kept (only for files that exist: a name created later
      // may resolve differently).
      IDENTITIES.put(absolute, real);
      return real;
    } catch (NoSuchFileException e) {
      absolute = absolute.normalize();
      Path parent = absolute.getParent();
      if (parent == null) {
        return absolute;
      }
      try {
        return parent.toRealPath().resolve(absolute.getFileName());
      } catch (NoSuchFileException noParent) {
        return absolute;
      }
    }
  }

  /** The path as the C library takes it: in the platform's file name encoding, NUL-terminated. */
  private static byte[] nativePath(Path path) {
    return NATIVE_PATHS.computeIfAbsent(
        path,
        p -> {
          byte[] name = p.toString().getBytes(NATIVE_ENCODING);
          return java.util.Arrays.copyOf(name, name.length + 1);
        });
  }

  private interface Attempt {
    boolean tryOnce() throws IOException;
  }

  private static void poll(
      Attempt attempt, long deadline, Path path, Duration timeout, String holder)
      throws IOException {
    long sleep = 1;
    while (!attempt.tryOnce()) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new PoolLockTimeoutException(path, timeout, holder);
      }
      try {
        Thread.sleep(Math.min(sleep, TimeUnit.NANOSECONDS.toMillis(left) + 1));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while waiting for the lock on " + path);
      }
      sleep = Math.min(sleep * 2, MAX_POLL_MILLIS);
    }
  }

  FileChannel channel() {
    return channel;
  }

  @Override
  public void close() throws IOException {
    IOException failure = null;
    try {
      try {
        fcntlLock.release();
      } catch (IOException e) {
        failure = e;
      }
      if (flockFd >= 0) {
        try {
          LibC.closeDescriptor(flockFd);
        } catch (IOException e) {
          failure = chain(failure, e);
        }
      }
      try {
        channel.close();
      } catch (IOException e) {
        failure = chain(failure, e);
      }
    } finally {
      inProcess.unlock();
    }
    if (failure != null) {
      throw failure;
    }
  }

  private static IOException chain(IOException first, IOException next) {
    if (first == null) {
      return next;
    }
    first.addSuppressed(next);
    return first;
  }

  /**
   * After a failed acquire: drops the flock, then the channel; adds failures to {@code primary}.
   */
  private static void closeQuietly(FileChannel channel, int fd, Exception primary) {
    if (fd >= 0) {
      try {
        LibC.closeDescriptor(fd);
      } catch (IOException e) {
        primary.addSuppressed(e);
      }
    }
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException e) {
        primary.addSuppressed(e);
      }
    }
  }
}
