package dev.kvprov.inspect;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvprov.otel.ProvisioningReport;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvp status}: where provisioning is, from the pool and kvprov's markers. */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description = {
      "Where provisioning is: not started, running (and the step it is at),",
      "succeeded, or failed (and why), from the pool and kvprov's markers in",
      "/var/lib/kvprov (under --root R: R's). Like cloud-init status --long.",
      "",
      "--wait follows the pool until there is a verdict, succeeded or failed."
    },
    footer = {
      "",
      "",
      "Examples:",
      "  kvp status",
      "  kvp status --wait --timeout 10m --json",
      "  kvp status --root /mnt/rescued-disk"
    })
final class StatusCommand implements Callable<Integer> {
  /** The exit status of a run with no verdict yet. */
  static final int NO_VERDICT = ExitCode.NO_VERDICT.code;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin PoolOptions input;

  @Option(names = "--json", description = "{status, reason, step, since, report, markers, pool}")
  boolean json;

  @Option(names = "--wait", description = "Follow the pool until there is a verdict.")
  boolean waitForVerdict;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      converter = WatchCommand.DurationConverter.class,
      description = "With --wait: give up after this long (200ms, 30s, 5m, 1h; default: never).")
  Duration timeout;

  @Option(
      names = "--interval",
      paramLabel = "DURATION",
      defaultValue = "500ms",
      converter = WatchCommand.DurationConverter.class,
      description = "With --wait: how often to look (default: ${DEFAULT-VALUE}).")
  Duration interval;

  /** Where provisioning is. */
  enum State {
    NOT_STARTED("not started"),
    RUNNING("running"),
    SUCCEEDED("succeeded"),
    FAILED("failed");

    final String words;

    State(String words) {
      this.words = words;
    }
  }

  /**
   * What the pool and the markers say.
   *
   * @param reason a failure's reason, or null
   * @param step the step a running (or hung) run is at, or null
   * @param since when that step, or the run, started; or when the report was written
   * @param report the report's fields, or null
   */
  record Verdict(
      State state,
      String reason,
      String step,
      Instant since,
      ProvisioningReport report,
      List<String> markers) {
    /**
     * Nothing in the pool, but this VM's Ready marker: reported Ready on an earlier boot, whose
     * pool has been cleared since.
     */
    Verdict orReady(List<String> markers) {
      return markers.stream().anyMatch(m -> m.endsWith(".ready"))
          ? new Verdict(State.SUCCEEDED, null, null, null, null, markers)
          : this;
    }
  }

  @Override
  public Integer call() throws InterruptedException {
    if (input.hostExport() && waitForVerdict || input.fromStdin() && waitForVerdict) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--wait follows a pool file; stdin and host exports do not change");
    }
    if (interval.isZero() || interval.isNegative()) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--interval must be longer than 0");
    }
    if (timeout != null && !waitForVerdict) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--timeout goes with --wait");
    }
    CountDownLatch stop = new CountDownLatch(1);
    Runnable restore = waitForVerdict ? CtrlC.onInterrupt(stop::countDown) : () -> {};
    long started = System.nanoTime();
    try {
      while (true) {
        Verdict verdict = look();
        if (verdict == null) {
          return 3;
        }
        boolean decided = verdict.state() == State.SUCCEEDED || verdict.state() == State.FAILED;
        boolean timedOut = timeout != null && System.nanoTime() - started >= timeout.toNanos();
        if (decided || !waitForVerdict || timedOut) {
          print(verdict);
          return switch (verdict.state()) {
            case SUCCEEDED -> 0;
            case FAILED -> 1;
            default -> NO_VERDICT;
          };
        }
        long wait = interval.toNanos();
        if (timeout != null) {
          wait = Math.min(wait, Math.max(1, timeout.toNanos() - (System.nanoTime() - started)));
        }
        if (stop.await(wait, TimeUnit.NANOSECONDS)) {
          print(look());
          return NO_VERDICT;
        }
      }
    } finally {
      restore.run();
    }
  }

  /** One look at the pool and the markers; null when the pool cannot be read (said). */
  private Verdict look() {
    List<String> markers = markers();
    boolean live = isLive();
    if (!live && !input.fromStdin() && !input.hostExport() && !exists()) {
      spec.commandLine()
          .getErr()
          .println("kvp status: " + input.describe() + ": no such file or directory");
      return null;
    }
    if (live && (isEmpty(input.path()) || stale(input.path()))) {
      // no pool yet, or the last boot's, which this boot's first writer will clear
      return new Verdict(State.NOT_STARTED, null, null, null, null, markers).orReady(markers);
    }
    List<BootSection> boots = BootSection.read(input, spec);
    if (boots == null) {
      return null;
    }
    // the last boot decides: an earlier boot's report says nothing of how the last one ended
    BootSection last = boots.isEmpty() ? null : boots.get(boots.size() - 1);
    String raw = last == null ? null : last.report();
    if (raw != null) {
      try {
        ProvisioningReport report = ProvisioningReport.parse(raw);
        Instant at = report.get("timestamp").map(SpanForest::time).orElse(null);
        return report.isSuccess()
            ? new Verdict(State.SUCCEEDED, null, null, at, report, markers)
            : new Verdict(
                State.FAILED,
                report.get("reason").orElse("(no reason given)"),
                null,
                at,
                report,
                markers);
      } catch (IllegalArgumentException e) {
        return new Verdict(
            State.FAILED,
            "the PROVISIONING_REPORT does not read: " + raw,
            null,
            null,
            null,
            markers);
      }
    }
    List<SpanNode> open = last == null ? List.of() : SpanForest.unfinished(last.roots());
    if (!open.isEmpty()) {
      SpanNode step = open.get(open.size() - 1);
      return new Verdict(State.RUNNING, null, step.name, step.start, null, markers);
    }
    if (last != null && last.alreadyProvisioned()) {
      return new Verdict(State.SUCCEEDED, null, null, null, null, markers);
    }
    return new Verdict(State.NOT_STARTED, null, null, null, null, markers).orReady(markers);
  }

  /** The VM's own pool on the running system: the default, not a file, a disk or an export. */
  private boolean isLive() {
    return input.source == null
        || input.source.file == null && input.source.root == null && input.source.hostXml == null;
  }

  private boolean exists() {
    return input.source != null && input.source.root != null
        ? Files.isDirectory(input.source.root)
        : Files.exists(input.path());
  }

  /** A live pool last written before this boot began: the last boot's. */
  private static boolean stale(Path pool) {
    try {
      return !Files.getLastModifiedTime(pool)
          .toInstant()
          .isAfter(dev.kvprov.kvp.BootClock.system().bootTime());
    } catch (IOException | RuntimeException e) {
      return false; // no boot clock (not Linux): the pool decides
    }
  }

  /** No pool yet, or an empty one: nothing to read (and nothing to say at every look). */
  private static boolean isEmpty(Path pool) {
    try {
      return !Files.exists(pool) || Files.size(pool) == 0;
    } catch (IOException e) {
      return false; // reading it says why
    }
  }

  /** kvprov's markers: {@code <vm id>.provisioned} and {@code <vm id>.ready}. */
  /**
   * kvprov's markers of this VM (its id as DMI gives it): on the running system or a rescued disk
   * only; a file or an export copied from elsewhere has none here.
   */
  private List<String> markers() {
    if (!isLive() && input.source.root == null) {
      return List.of();
    }
    Path root =
        input.source != null && input.source.root != null ? input.source.root : Path.of("/");
    // on the running system, this VM's only (an image may carry the VM it was captured from);
    // a rescued disk's are its own VM's
    String vmId = isLive() ? dev.kvprov.kvp.VmId.read(root).value() : null;
    Path directory = root.resolve("var/lib/kvprov");
    List<String> found = new ArrayList<>();
    try (Stream<Path> files = Files.list(directory)) {
      files
          .map(f -> f.getFileName().toString())
          .filter(n -> n.endsWith(".provisioned") || n.endsWith(".ready"))
          .filter(n -> vmId == null || n.startsWith(vmId + "."))
          .sorted()
          .forEach(found::add);
    } catch (IOException e) {
      // none, or not readable by this user: the pool alone decides
    }
    return found;
  }

  private void print(Verdict v) {
    if (v == null) {
      return;
    }
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      ObjectNode node = Json.object();
      node.put("status", v.state().words);
      node.put("reason", v.reason());
      node.put("step", v.step());
      node.put("since", v.since() == null ? null : v.since().toString());
      if (v.report() == null) {
        node.putNull("report");
      } else {
        ObjectNode fields = node.putObject("report");
        v.report().fields().forEach(f -> fields.put(f.key(), f.value()));
      }
      v.markers().forEach(node.putArray("markers")::add);
      node.put("pool", input.describe());
      out.println(Json.write(node));
    } else {
      out.println("status:   " + v.state().words);
      if (v.reason() != null) {
        out.println("reason:   " + Text.printable(v.reason()));
      }
      if (v.step() != null) {
        out.println("step:     " + Text.printable(v.step()) + ", since " + v.since());
      } else if (v.since() != null) {
        out.println("at:       " + v.since());
      }
      if (v.report() != null) {
        out.println(
            "report:   by " + Text.printable(v.report().get("agent").orElse("an unnamed agent")));
      }
      out.println("markers:  " + (v.markers().isEmpty() ? "none" : String.join(", ", v.markers())));
      out.println("pool:     " + Text.printable(input.describe()));
    }
    out.flush();
  }
}
