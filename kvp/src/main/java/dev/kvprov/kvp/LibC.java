package dev.kvprov.kvp;

import com.sun.jna.Function;
import com.sun.jna.LastErrorException;
import com.sun.jna.NativeLibrary;
import java.io.IOException;

/**
 * Every native call of this module: the BSD {@code flock} lock, which the JDK does not offer and
 * which cloud-init and azure-init take on the pool file. Bound once, as JNA {@link Function}s
 * called with their arguments: JNA's direct mapping ({@code Native.register}) would describe each
 * argument to libffi through JNA's structure types, whose set-up (reflection, annotation proxies)
 * costs a cold JVM about as much as the rest of JNA's start (docs/performance.md); the native side
 * types these few int and byte[] arguments itself. When the native library cannot load, {@link
 * #isAvailable()} says so instead of failing.
 *
 * <p>JDK 22's {@code java.lang.foreign} was tried instead, and bound more slowly still on JDK 25
 * (docs/performance.md).
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

  private static final Function OPEN;
  private static final Function FLOCK;
  private static final Function CLOSE;
  private static final String UNAVAILABLE_REASON;

  static {
    Function open = null;
    Function flock = null;
    Function close = null;
    String reason = null;
    // Unless told the system's library directories, JNA's NativeLibrary learns them by running
    // `/sbin/ldconfig -p` as it loads: a process forked on every pool lock's first use. The C
    // library needs none of them (JNA binds "c" to the running process, dlopen(NULL)), so an empty
    // list is given when nobody gave one. Nothing else in this process loads libraries by JNA.
    if (System.getProperty(PLATFORM_LIBRARY_PATH) == null) {
      System.setProperty(PLATFORM_LIBRARY_PATH, "");
    }
    try {
      NativeLibrary c = NativeLibrary.getInstance("c");
      // errno checked after each call, as a LastErrorException ("[errno] strerror")
      open = c.getFunction("open", Function.THROW_LAST_ERROR);
      flock = c.getFunction("flock", Function.THROW_LAST_ERROR);
      close = c.getFunction("close", Function.THROW_LAST_ERROR);
    } catch (LinkageError | RuntimeException e) {
      reason = e.toString();
    }
    OPEN = open;
    FLOCK = flock;
    CLOSE = close;
    UNAVAILABLE_REASON = reason;
  }

  private LibC() {}

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
      return OPEN.invokeInt(new Object[] {path, O_RDONLY | O_CLOEXEC});
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
        FLOCK.invokeInt(new Object[] {fd, operation | LOCK_NB});
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
      CLOSE.invokeInt(new Object[] {fd});
    } catch (LastErrorException e) {
      throw new IOException("close(" + fd + ") failed: " + e.getMessage(), e);
    }
  }
}
