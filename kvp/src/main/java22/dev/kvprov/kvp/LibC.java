package dev.kvprov.kvp;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * Every native call of this module, on JDK 22 and later: the BSD {@code flock} lock, which the JDK
 * does not offer and which cloud-init and azure-init take on the pool file. Bound through the JDK's
 * own foreign function API, so a lock loads no JNA (its logger, its dispatch library and its
 * registration cost a cold JVM tens of milliseconds). The multi-release jar gives JDK 17 the JNA
 * binding of the same name; both say the same things to their callers.
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

  private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
  private static final VarHandle ERRNO =
      CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

  private static final MethodHandle OPEN;
  private static final MethodHandle FLOCK;
  private static final MethodHandle CLOSE;
  private static final String UNAVAILABLE_REASON;

  static {
    MethodHandle open = null;
    MethodHandle flock = null;
    MethodHandle close = null;
    String reason = null;
    try {
      Linker linker = Linker.nativeLinker();
      Linker.Option errno = Linker.Option.captureCallState("errno");
      // open(2) is variadic: its mode is passed, as the C ABI wants, after the fixed arguments.
      open =
          linker.downcallHandle(
              linker.defaultLookup().find("open").orElseThrow(),
              FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT),
              errno,
              Linker.Option.firstVariadicArg(2));
      flock =
          linker.downcallHandle(
              linker.defaultLookup().find("flock").orElseThrow(),
              FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT),
              errno);
      close =
          linker.downcallHandle(
              linker.defaultLookup().find("close").orElseThrow(),
              FunctionDescriptor.of(JAVA_INT, JAVA_INT),
              errno);
    } catch (RuntimeException e) {
      // IllegalCallerException when native access is denied, for one.
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

  /** Why the native binding did not load; empty when it did. */
  static String unavailableReason() {
    return UNAVAILABLE_REASON == null ? "" : UNAVAILABLE_REASON;
  }

  /**
   * Opens a path read-only, close-on-exec, for locking only.
   *
   * @param path the path's bytes, NUL-terminated
   */
  static int openForLock(byte[] path) throws IOException {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment state = arena.allocate(CALL_STATE);
      int fd =
          (int)
              OPEN.invokeExact(state, arena.allocateFrom(JAVA_BYTE, path), O_RDONLY | O_CLOEXEC, 0);
      if (fd < 0) {
        String name =
            new String(path, 0, path.length - 1, java.nio.charset.Charset.defaultCharset());
        throw new IOException("open(" + name + ") for flock failed: " + describe(errno(state)));
      }
      return fd;
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new AssertionError(e);
    }
  }

  /**
   * Tries {@code flock(fd, operation | LOCK_NB)}.
   *
   * @return true if the lock was taken, false if another open file holds a conflicting lock
   */
  static boolean tryFlock(int fd, int operation) throws IOException {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment state = arena.allocate(CALL_STATE);
      while (true) {
        if ((int) FLOCK.invokeExact(state, fd, operation | LOCK_NB) == 0) {
          return true;
        }
        int errno = errno(state);
        if (errno == EWOULDBLOCK) {
          return false;
        }
        if (errno != EINTR) {
          throw new IOException("flock failed: " + describe(errno));
        }
      }
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new AssertionError(e);
    }
  }

  static void closeDescriptor(int fd) throws IOException {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment state = arena.allocate(CALL_STATE);
      if ((int) CLOSE.invokeExact(state, fd) != 0) {
        throw new IOException("close(" + fd + ") failed: " + describe(errno(state)));
      }
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new AssertionError(e);
    }
  }

  private static int errno(MemorySegment state) {
    return (int) ERRNO.get(state, 0L);
  }

  /** The C library's words for an error number, as JNA's message gives them on JDK 17. */
  private static String describe(int errno) {
    String words;
    try {
      words = ((MemorySegment) Strerror.STRERROR.invokeExact(errno)).reinterpret(1024).getString(0);
    } catch (Throwable e) {
      words = "error " + errno;
    }
    return "[" + errno + "] " + words;
  }

  /** Bound only when an error is to be told, which a lock that works never needs. */
  private static final class Strerror {
    static final MethodHandle STRERROR =
        Linker.nativeLinker()
            .downcallHandle(
                Linker.nativeLinker().defaultLookup().find("strerror").orElseThrow(),
                FunctionDescriptor.of(ADDRESS, JAVA_INT));
  }
}
