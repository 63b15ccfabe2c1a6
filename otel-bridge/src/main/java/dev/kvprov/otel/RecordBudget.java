package dev.kvprov.otel;

import java.util.EnumMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * How many KVP records kvprov may write this boot, shared with cloud-init and the host's own items
 * in the same pool. As it runs low, the least useful records go first: debug events and logs once
 * half is used, info and warning ones at four fifths, ordinary span records at the limit. Errors,
 * the end of a failed span, the end of a span whose start was written, and the provisioning report
 * are never dropped.
 */
final class RecordBudget {
  /** Record classes in the order they give way. */
  enum Priority {
    DEBUG,
    INFO,
    SPAN,
    ALWAYS
  }

  private final int budget;
  private int used;
  private final Map<Priority, Long> dropped = new EnumMap<>(Priority.class);

  /**
   * @param budget records kvprov may write this boot
   * @param alreadyUsed kvprov records already in the pool this boot (an earlier run)
   */
  RecordBudget(int budget, int alreadyUsed) {
    this.budget = budget;
    this.used = alreadyUsed;
  }

  /** Takes {@code records} from the budget, or counts them as dropped and returns false. */
  synchronized boolean take(Priority priority, int records) {
    long limit =
        switch (priority) {
          case DEBUG -> budget / 2;
          case INFO -> budget * 4L / 5;
          case SPAN -> budget;
          case ALWAYS -> Long.MAX_VALUE;
        };
    if (used + records > limit) {
      dropped.merge(priority, (long) records, Long::sum);
      return false;
    }
    used += records;
    return true;
  }

  /** Gives back {@code records} counted as used that are no longer in the pool. */
  synchronized void forget(int records) {
    used = Math.max(0, used - records);
  }

  synchronized int used() {
    return used;
  }

  synchronized long droppedTotal() {
    return dropped.values().stream().mapToLong(Long::longValue).sum();
  }

  /** E.g. {@code 12 (debug=10, info=2) of a budget of 300}. */
  synchronized String droppedSummary() {
    return droppedTotal()
        + " ("
        + dropped.entrySet().stream()
            .map(e -> e.getKey().name().toLowerCase(java.util.Locale.ROOT) + "=" + e.getValue())
            .collect(Collectors.joining(", "))
        + ") of a budget of "
        + budget;
  }
}
