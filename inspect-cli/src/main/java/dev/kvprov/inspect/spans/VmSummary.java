package dev.kvprov.inspect.spans;

import dev.kvprov.inspect.pool.VmInput;
import dev.kvprov.inspect.writers.SpanForest;
import dev.kvprov.inspect.writers.SpanNode;
import dev.kvprov.otel.ProvisioningReport;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One VM of a fleet, in the few fields {@code kvp fleet} keeps of it: its verdict and why, how long
 * its boot took, and its steps' durations. Its spans are dropped once it is made, so a fleet of any
 * size is read in the memory of a few boots.
 *
 * @param name the VM, as its file names it
 * @param file where it was read from
 * @param reason why it is not {@code ok}: the report's reason (and the step that failed first), the
 *     step a run that never finished was in, or why the file could not be read; empty when ok
 * @param duration from its first span's start to its last record's time, when it has spans
 * @param slowest its longest step (one still open counts until the last record)
 * @param steps the steps of its run: the top spans' children (a top span without any is a step
 *     itself), a name seen twice in one boot added up
 */
public record VmSummary(
    String name,
    String file,
    Verdict verdict,
    String reason,
    Optional<Duration> duration,
    Optional<Step> slowest,
    List<Step> steps) {

  /** What became of a VM's provisioning. */
  public enum Verdict {
    OK("ok"),
    FAILED("failed"),
    UNFINISHED("unfinished"),
    NO_REPORT("no report"),
    UNREADABLE("unreadable");

    /** The word the output uses. */
    public final String word;

    Verdict(String word) {
      this.word = word;
    }
  }

  /** One step of a VM's run: how long it took, whether it failed, whether it ended. */
  public record Step(String name, Duration duration, boolean failed, boolean finished) {}

  /** A VM whose records could not be read: {@code why} in one line. */
  public static VmSummary unreadable(VmInput input, String why) {
    return new VmSummary(
        input.name(),
        input.file().toString(),
        Verdict.UNREADABLE,
        why,
        Optional.empty(),
        Optional.empty(),
        List.of());
  }

  /** A VM read whole into {@code boot}. */
  public static VmSummary of(VmInput input, BootSection boot) {
    List<SpanNode> roots = boot.roots();
    Instant last = SpanForest.lastTime(roots);
    Instant first =
        roots.stream()
            .map(r -> r.start)
            .filter(t -> t != null)
            .min(Instant::compareTo)
            .orElse(null);
    Optional<Duration> duration =
        first == null || last == null ? Optional.empty() : Optional.of(between(first, last));
    List<Step> steps = steps(roots, last);
    Optional<Step> slowest =
        steps.stream().reduce((a, b) -> b.duration().compareTo(a.duration()) > 0 ? b : a);
    Verdict verdict;
    String reason;
    if (boot.report() != null) {
      ProvisioningReport report;
      try {
        report = ProvisioningReport.parse(boot.report());
        verdict = report.isSuccess() ? Verdict.OK : Verdict.FAILED;
        reason =
            report.isSuccess()
                ? ""
                : report.get("reason").orElse("(no reason given)") + failedStep(steps);
      } catch (IllegalArgumentException e) {
        verdict = Verdict.NO_REPORT;
        reason = "an unreadable PROVISIONING_REPORT";
      }
    } else {
      List<SpanNode> open = SpanForest.unfinished(roots);
      if (!open.isEmpty()) {
        verdict = Verdict.UNFINISHED;
        reason = "still in " + open.get(open.size() - 1).name;
      } else if (boot.alreadyProvisioned()) {
        verdict = Verdict.OK;
        reason = "";
      } else {
        verdict = Verdict.NO_REPORT;
        reason = "no PROVISIONING_REPORT";
      }
    }
    return new VmSummary(
        input.name(), input.file().toString(), verdict, reason, duration, slowest, steps);
  }

  /** {@code " (step imds.fetch)"}: the first step that failed, when one did. */
  private static String failedStep(List<Step> steps) {
    return steps.stream()
        .filter(Step::failed)
        .findFirst()
        .map(s -> " (step " + s.name() + ")")
        .orElse("");
  }

  private static List<Step> steps(List<SpanNode> roots, Instant last) {
    Map<String, Step> steps = new LinkedHashMap<>();
    for (SpanNode root : roots) {
      for (SpanNode node : root.children.isEmpty() ? List.of(root) : root.children) {
        if (node.start == null) {
          continue;
        }
        boolean finished = node.end != null;
        Instant end = finished ? node.end : last;
        Step step =
            new Step(node.name, between(node.start, end), node.status.equals("error"), finished);
        steps.merge(
            node.name,
            step,
            (a, b) ->
                new Step(
                    a.name(),
                    a.duration().plus(b.duration()),
                    a.failed() || b.failed(),
                    a.finished() && b.finished()));
      }
    }
    return List.copyOf(new ArrayList<>(steps.values()));
  }

  /** A span's length; a damaged clock that runs backwards gives zero, never a negative time. */
  private static Duration between(Instant from, Instant to) {
    Duration d = Duration.between(from, to);
    return d.isNegative() ? Duration.ZERO : d;
  }
}
