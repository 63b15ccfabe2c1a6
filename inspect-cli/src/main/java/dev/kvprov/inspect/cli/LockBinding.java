package dev.kvprov.inspect.cli;

import dev.kvprov.kvp.PoolFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The pool locks' native binding, started on a second core while picocli builds the command's
 * model, when the command line says that a live pool will be locked. JNA's set-up
 * (java.util.logging, its native library, registering the calls) took 58–100 ms of a short run
 * before its first lock (docs/performance.md); picocli's model takes as long, and the two do not
 * depend on each other.
 *
 * <p>Only a guess from the words of the command line, made before picocli reads them: a wrong guess
 * costs a second core some work, never the output. It is never made when the binding is not needed
 * (help, version, a copy's name, a host export, stdin, a live pool that does not exist yet for a
 * read) nor when there is no second core to make it on.
 */
final class LockBinding {
  /** Hyper-V's names for its pools, which kvp locks ({@code PoolSource}'s live pools). */
  private static final Pattern LIVE_POOL = Pattern.compile("\\.kvp_pool_\\d");

  /** The commands that read a pool their {@link PoolOptions} name, under its locks. */
  private static final Set<String> READS =
      Set.of(
          "list",
          "tree",
          "blame",
          "timeline",
          "export",
          "watch",
          "report",
          "status",
          "doctor",
          "decode",
          "dump",
          "get");

  /** The commands that change it: they lock it even to create it. */
  private static final Set<String> WRITES = Set.of("set", "delete", "append", "clear");

  private static final Set<String> HELP = Set.of("-h", "--help", "-V", "--version");

  private LockBinding() {}

  /** Starts the binding on a thread of its own if {@link #wanted} says so for this machine. */
  static void startFor(String[] args) {
    if (wanted(args, Runtime.getRuntime().availableProcessors())) {
      Thread binding = new Thread(LockBinding::bind, "kvp-lock-binding");
      binding.setDaemon(true); // an exit never waits for it
      try {
        binding.start();
      } catch (OutOfMemoryError e) {
        // no thread to be had (ulimit -u): the first lock binds, as it does without this
      }
    }
  }

  private static void bind() {
    try {
      PoolFile.bindLocks();
    } catch (Throwable e) {
      // Dropped: the lock meets the same failure where it is taken, and says it as it does
      // without this thread (the JVM keeps a class's failed initialisation for every later use).
    }
  }

  /** Whether {@code kvp ARGS} will lock a live pool, and {@code cores} can bind ahead of it. */
  static boolean wanted(String[] args, int cores) {
    if (cores < 2 || args.length == 0) {
      return false;
    }
    try {
      return willLock(args);
    } catch (RuntimeException e) {
      return false; // a name no path can have: picocli or the read will say so
    }
  }

  private static boolean willLock(String[] args) {
    boolean write = WRITES.contains(args[0]);
    if (!write && !READS.contains(args[0])) {
      return false;
    }
    String file = null;
    String root = null;
    String dir = "/var/lib/hyperv";
    String pool = "1";
    for (int i = 1; i < args.length; i++) {
      String arg = args[i];
      if (HELP.contains(arg) || arg.equals("--host-xml") || arg.startsWith("--host-xml=")) {
        return false;
      }
      int equals = arg.indexOf('=');
      String name = equals > 0 && arg.startsWith("--") ? arg.substring(0, equals) : arg;
      String value =
          equals > 0 && arg.startsWith("--")
              ? arg.substring(equals + 1)
              : i + 1 < args.length ? args[i + 1] : null;
      switch (name) {
        case "--file" -> file = value;
        case "--root" -> root = value;
        case "--dir" -> dir = value;
        case "--pool" -> pool = value;
        default -> {
          continue;
        }
      }
      if (value == null) {
        return false; // picocli will say what is missing
      }
      if (equals < 0) {
        i++;
      }
    }
    if ("-".equals(file)) {
      return false;
    }
    Path path =
        file != null
            ? Path.of(file)
            : Path.of(root == null ? dir : root + "/var/lib/hyperv").resolve(".kvp_pool_" + pool);
    Path name = path.getFileName();
    return name != null
        && LIVE_POOL.matcher(name.toString()).matches()
        && System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")
        && (write || Files.isRegularFile(path));
  }
}
