package dev.kvprov.kvp;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import java.io.IOException;

/**
 * Every native call of this module: the BSD {@code flock} lock, which the JDK does not offer and
 * which cloud-init and azure-init take on the pool file. Bound once, by JNA direct mapping (a plain
 * native call per use, no proxy); when the native library cannot load, {@link #isAvailable()} says
 * so instead of failing.
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

  private static final String PLATFORM_LIBRARY_PATH = "jna.platform.library.path";

  private static final String UNAVAILABLE_REASON;

  static {
    String reason = null;
    // Unless told the system's library directories, JNA's NativeLibrary learns them by running
    // `/sbin/ldconfig -p` as it loads: a process forked on every pool lock's first use. The C
    // library needs none of them (JNA binds "c" to the running process, dlopen(NULL)), so an empty
    // list is given when nobody gave one. Nothing else in this process loads libraries by JNA.
    if (System.getProperty(PLATFORM_LIBRARY_PATH) == null) {
      System.setProperty(PLATFORM_LIBRARY_PATH, "");
    }
    try {
      Native.register(LibC.class, NativeLibrary.getInstance("c"));
    } catch (LinkageError | RuntimeException e) {
      reason = e.toString();
    }
    UNAVAILABLE_REASON = reason;
  }

  private LibC() {}

  private static native int open(byte[] path, int flags) throws LastErrorException;

  private static native int flock(int fd, int operation) throws LastErrorException;

  private static native int close(int fd) throws LastErrorException;

  static boolean isAvailable() {
    return UNAVAILABLE_REASON == null;
  }

  /** Why the native library did not load; empty when it did. */
  static String unavailableReason() {
    return UNAVAILABLE_REASON == null ? "" : UNAVAILABLE_REASON;
  }

  /**
   * Opens a path read-only, close-on-exec, for locking only.
   *
   * @param path the path's bytes, NUL-terminated (a byte array crosses into native code by a plain
   *     copy, where a String would cost a native allocation and its cleaner on every call)
   */
  static int openForLock(byte[] path) throws IOException {
    try {
      return open(path, O_RDONLY | O_CLOEXEC);
    } catch (LastErrorException e) {
      String name = new String(path, 0, path.length - 1, java.nio.charset.Charset.defaultCharset());
      throw new IOException("open(" + name + ") for flock failed: " + e.getMessage(), e);
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
        flock(fd, operation | LOCK_NB);
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

  static void closeDescriptor(int fd) throws IOException {
    try {
      close(fd);
    } catch (LastErrorException e) {
      throw new IOException("close(" + fd + ") failed: " + e.getMessage(), e);
    }
  }
}
