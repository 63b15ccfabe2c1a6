package dev.kvprov.kvp;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import java.io.IOException;

/**
 * Every native call of this module: the BSD {@code flock} lock, which the JDK does not offer and
 * which cloud-init and azure-init take on the pool file. Loaded once; when the native library
 * cannot load, {@link #isAvailable()} says so instead of failing.
 */
final class LibC {
  static final int LOCK_SH = 1;
  static final int LOCK_EX = 2;
  static final int LOCK_NB = 4;

  static final int EINTR = 4;
  static final int EWOULDBLOCK = 11;

  private static final int O_RDONLY = 0;
  // Linux generic value (x86_64, aarch64, riscv64, s390x, ppc64le).
  private static final int O_CLOEXEC = 0x80000;

  private interface CLibrary extends Library {
    int open(String path, int flags) throws LastErrorException;

    int flock(int fd, int operation) throws LastErrorException;

    int close(int fd) throws LastErrorException;
  }

  private static final CLibrary LIBC;
  private static final String UNAVAILABLE_REASON;

  static {
    CLibrary lib = null;
    String reason = null;
    try {
      lib = Native.load("c", CLibrary.class);
    } catch (LinkageError | RuntimeException e) {
      reason = e.toString();
    }
    LIBC = lib;
    UNAVAILABLE_REASON = reason;
  }

  private LibC() {}

  static boolean isAvailable() {
    return LIBC != null;
  }

  /** Why the native library did not load; empty when it did. */
  static String unavailableReason() {
    return UNAVAILABLE_REASON == null ? "" : UNAVAILABLE_REASON;
  }

  /** Opens {@code path} read-only, close-on-exec, for locking only. */
  static int openForLock(String path) throws IOException {
    try {
      return LIBC.open(path, O_RDONLY | O_CLOEXEC);
    } catch (LastErrorException e) {
      throw new IOException("open(" + path + ") for flock failed: " + e.getMessage(), e);
    }
  }

  /**
   * Tries {@code flock(fd, operation | LOCK_NB)}.
   *
   * @return true if the lock was taken, false if another open file holds a conflicting lock
   */
  static boolean tryFlock(int fd, int operation) throws IOException {
    while (true) {
      try {
        LIBC.flock(fd, operation | LOCK_NB);
        return true;
      } catch (LastErrorException e) {
        if (e.getErrorCode() == EWOULDBLOCK) {
          return false;
        }
        if (e.getErrorCode() != EINTR) {
          throw new IOException("flock failed: " + e.getMessage(), e);
        }
      }
    }
  }

  static void close(int fd) throws IOException {
    try {
      LIBC.close(fd);
    } catch (LastErrorException e) {
      throw new IOException("close(" + fd + ") failed: " + e.getMessage(), e);
    }
  }
}
