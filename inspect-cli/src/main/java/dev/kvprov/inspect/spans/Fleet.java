package dev.kvprov.inspect.spans;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Many VMs at once, folded one {@link VmSummary} at a time into state whose size does not grow with
 * their number: a count per verdict, a {@link DurationHistogram} per step and for the whole boot,
 * and the failures grouped by reason with the first few VMs of each.
 */
public final class Fleet {
  /** Steps told apart; past these, a step of a new name is only counted ({@link #stepsLeftOut}). */
  static final int MAX_STEPS = 256;

  /** Reasons told apart; past these, a VM with a new reason is only counted. */
  static final int MAX_REASONS = 1000;

  /** The VMs named under each reason; the others are counted. */
  public static final int NAMED_PER_REASON = 3;

  private final Map<VmSummary.Verdict, Integer> verdicts = new EnumMap<>(VmSummary.Verdict.class);
  private final Map<String, StepTally> steps = new LinkedHashMap<>();
  private final Map<String, ReasonTally> reasons = new LinkedHashMap<>();
  private final DurationHistogram boots = new DurationHistogram();
  private int vms;
  private int stepsLeftOut;
  private int reasonsLeftOut;

  /** A step across the fleet: in how many VMs, how often failed or left open, how long. */
  public record StepStats(
      String name, int vms, int failed, int unfinished, Duration p50, Duration p95, Duration max) {}

  /** VMs that ended the same way for the same reason: how many, and the first few by name. */
  public record Failure(VmSummary.Verdict verdict, String reason, int vms, List<String> named) {}

  private static final class StepTally {
    final DurationHistogram finished = new DurationHistogram();
    int vms;
    int failed;
    int unfinished;
  }

  private static final class ReasonTally {
    final VmSummary.Verdict verdict;
    final String reason;
    final List<String> named = new ArrayList<>(NAMED_PER_REASON);
    int vms;

    ReasonTally(VmSummary.Verdict verdict, String reason) {
      this.verdict = verdict;
      this.reason = reason;
    }
  }

  public void add(VmSummary vm) {
    vms++;
    verdicts.merge(vm.verdict(), 1, Integer::sum);
    vm.duration().ifPresent(boots::add);
    for (VmSummary.Step step : vm.steps()) {
      StepTally tally = steps.get(step.name());
      if (tally == null) {
        if (steps.size() >= MAX_STEPS) {
          stepsLeftOut++;
          continue;
        }
        tally = new StepTally();
        steps.put(step.name(), tally);
      }
      tally.vms++;
      tally.failed += step.failed() ? 1 : 0;
      if (step.finished()) {
        tally.finished.add(step.duration());
      } else {
        tally.unfinished++;
      }
    }
    if (vm.verdict() != VmSummary.Verdict.OK) {
      String key = vm.verdict().name() + "\n" + vm.reason();
      ReasonTally tally = reasons.get(key);
      if (tally == null) {
        if (reasons.size() >= MAX_REASONS) {
          reasonsLeftOut++;
          return;
        }
        tally = new ReasonTally(vm.verdict(), vm.reason());
        reasons.put(key, tally);
      }
      tally.vms++;
      if (tally.named.size() < NAMED_PER_REASON) {
        tally.named.add(vm.name());
      }
    }
  }

  /** How many VMs were added. */
  public int vms() {
    return vms;
  }

  /** How many VMs had each verdict, in the verdicts' order (those with none left out). */
  public Map<VmSummary.Verdict, Integer> verdicts() {
    return new EnumMap<>(verdicts);
  }

  /** Whether every VM provisioned (and there was at least one). */
  public boolean allOk() {
    return vms > 0 && verdicts.getOrDefault(VmSummary.Verdict.OK, 0) == vms;
  }

  /**
   * The whole boot, first span to last record, across the VMs that have spans (one that never
   * finished, until its last record); failed and unfinished count the VMs with those verdicts.
   */
  public StepStats boots() {
    return stats(
        "(whole boot)",
        (int) boots.count(),
        verdicts.getOrDefault(VmSummary.Verdict.FAILED, 0),
        verdicts.getOrDefault(VmSummary.Verdict.UNFINISHED, 0),
        boots);
  }

  /** Every step, in the order the VMs first showed them; percentiles of finished runs only. */
  public List<StepStats> steps() {
    List<StepStats> out = new ArrayList<>();
    steps.forEach((name, t) -> out.add(stats(name, t.vms, t.failed, t.unfinished, t.finished)));
    return out;
  }

  private static StepStats stats(
      String name, int vms, int failed, int unfinished, DurationHistogram h) {
    return new StepStats(
        name, vms, failed, unfinished, h.percentile(0.50), h.percentile(0.95), h.max());
  }

  /** Step names seen after {@link #MAX_STEPS} others: counted here, not told apart. */
  public int stepsLeftOut() {
    return stepsLeftOut;
  }

  /** The VMs that did not end ok, grouped by verdict and reason, the largest group first. */
  public List<Failure> failures() {
    List<Failure> out = new ArrayList<>();
    reasons
        .values()
        .forEach(t -> out.add(new Failure(t.verdict, t.reason, t.vms, List.copyOf(t.named))));
    out.sort(Comparator.comparingInt((Failure f) -> -f.vms()));
    return out;
  }

  /** VMs whose reason came after {@link #MAX_REASONS} others: counted here, not grouped. */
  public int reasonsLeftOut() {
    return reasonsLeftOut;
  }
}
