package dev.kvprov.inspect.pool;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a run's time goes, for whoever measures start-up ({@code bench/kvp-phases.sh}): with {@code
 * -Dkvp.phases=true}, each phase's milliseconds since the JVM started and the classes loaded by its
 * end are printed on stderr at exit. Off, marking costs a field read: the management classes it
 * needs are loaded only when it is on.
 */
public final class Phases {
  private static final boolean ON = Boolean.getBoolean("kvp.phases");

  private record Mark(String phase, long uptimeMillis, long classes) {}

  private static final List<Mark> MARKS = new ArrayList<>();

  private static final int MAX_MARKS = 64;

  private Phases() {}

  /** The phase that ends now. */
  public static void mark(String phase) {
    if (ON) {
      synchronized (MARKS) {
        if (MARKS.size() == MAX_MARKS) {
          return; // status --wait reads the pool again and again: its first reads tell enough
        }
        MARKS.add(
            new Mark(
                phase,
                ManagementFactory.getRuntimeMXBean().getUptime(),
                ManagementFactory.getClassLoadingMXBean().getTotalLoadedClassCount()));
      }
    }
  }

  /** The phases so far, one line each: {@code kvp phase: <ms> ms <+ms> <classes> classes NAME}. */
  public static void print(PrintStream err) {
    if (!ON) {
      return;
    }
    synchronized (MARKS) {
      long before = 0;
      for (Mark m : MARKS) {
        err.printf(
            "kvp phase: %5d ms %+5d ms %5d classes  %s%n",
            m.uptimeMillis(), m.uptimeMillis() - before, m.classes(), m.phase());
        before = m.uptimeMillis();
      }
    }
  }
}
