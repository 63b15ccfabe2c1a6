package dev.kvprov.inspect.render;

import dev.kvprov.inspect.spans.Fleet;
import dev.kvprov.inspect.spans.VmSummary;
import dev.kvprov.inspect.text.Text;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * {@code kvp fleet} for people: a line per VM as it is read, then the steps' percentiles across the
 * fleet and the failures grouped by reason. The reason comes last on a VM's line, being the one
 * column of any length; at a terminal a line is cut to its width, in a pipe never.
 */
public final class FleetText {
  private static final int NAME = 24;
  private static final int VERDICT = 10;
  private static final int SLOWEST = 28;

  private final PrintWriter out;
  private final int columns;

  public FleetText(PrintWriter out, int columns) {
    this.out = out;
    this.columns = columns;
  }

  public void header() {
    print(
        Text.padRight("VM", NAME)
            + " "
            + Text.padRight("VERDICT", VERDICT)
            + Text.padLeft("BOOT", 9)
            + "  "
            + Text.padRight("SLOWEST STEP", SLOWEST)
            + " REASON");
  }

  public void vm(VmSummary vm) {
    String slowest =
        vm.slowest()
            .map(s -> Text.printable(s.name()) + " " + Text.secondsValue(s.duration()) + "s")
            .orElse("");
    print(
        (Text.padRight(Text.printable(vm.name()), NAME)
                + " "
                + Text.padRight(vm.verdict().word, VERDICT)
                + Text.padLeft(vm.duration().map(d -> Text.secondsValue(d) + "s").orElse("-"), 9)
                + "  "
                + Text.padRight(slowest, SLOWEST)
                + " "
                + Text.printable(vm.reason()))
            .stripTrailing());
  }

  /** The fleet: its verdicts in one line, its steps, its failures by reason. */
  public void summary(Fleet fleet) {
    out.println();
    StringBuilder counts = new StringBuilder();
    counts.append(fleet.vms()).append(fleet.vms() == 1 ? " VM" : " VMs");
    String sep = ": ";
    for (Map.Entry<VmSummary.Verdict, Integer> e : fleet.verdicts().entrySet()) {
      counts.append(sep).append(e.getValue()).append(' ').append(e.getKey().word);
      sep = ", ";
    }
    print(counts.toString());
    if (fleet.vms() == 0) {
      return;
    }
    out.println();
    print(
        Text.padRight("STEP", 24)
            + Text.padLeft("VMS", 6)
            + Text.padLeft("FAILED", 7)
            + Text.padLeft("OPEN", 5)
            + Text.padLeft("P50", 10)
            + Text.padLeft("P95", 10)
            + Text.padLeft("MAX", 10));
    step(fleet.boots());
    fleet.steps().forEach(this::step);
    print("(p50 and p95 from 1% buckets: at most 1% high; open steps are not in them)");
    if (fleet.stepsLeftOut() > 0) {
      print(
          "(" + fleet.stepsLeftOut() + " runs of steps past the first 256 names are not counted)");
    }
    List<Fleet.Failure> failures = fleet.failures();
    if (failures.isEmpty()) {
      return;
    }
    out.println();
    print("FAILURES BY REASON");
    for (Fleet.Failure f : failures) {
      String named = String.join(", ", f.named().stream().map(Text::printable).toList());
      int more = f.vms() - f.named().size();
      print(
          Text.padLeft(Integer.toString(f.vms()), 6)
              + "  "
              + Text.padRight(f.verdict().word, VERDICT)
              + " "
              + Text.printable(f.reason())
              + ": "
              + named
              + (more > 0 ? " and " + more + " more" : ""));
    }
    if (fleet.reasonsLeftOut() > 0) {
      print(
          Text.padLeft(Integer.toString(fleet.reasonsLeftOut()), 6)
              + "  VMs with reasons past the first 1000, not grouped");
    }
  }

  private void step(Fleet.StepStats s) {
    boolean timed = s.vms() > s.unfinished();
    print(
        Text.padRight(Text.printable(s.name()), 24)
            + Text.padLeft(Integer.toString(s.vms()), 6)
            + Text.padLeft(Integer.toString(s.failed()), 7)
            + Text.padLeft(Integer.toString(s.unfinished()), 5)
            + (timed ? seconds(s.p50()) + seconds(s.p95()) + seconds(s.max()) : "")
                .stripTrailing());
  }

  private static String seconds(Duration d) {
    return Text.seconds(d, 10);
  }

  private void print(String line) {
    out.println(columns == Integer.MAX_VALUE ? line : Text.cut(line, columns));
  }
}
