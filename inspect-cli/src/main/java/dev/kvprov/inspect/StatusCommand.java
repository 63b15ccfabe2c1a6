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
      List<String> markers) {}

  @Override
  public Integer call() throws InterruptedException {
    if (input.hostExport() && waitForVerdict || input.fromStdin() && waitForVerdict) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--wait follows a pool file; stdin and host exports do not change");
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
    String[] raw = new String[1];
    SpanForest forest = new SpanForest();
    boolean[] any = new boolean[1];
    boolean absent = !input.fromStdin() && !input.hostExport() && isEmpty(input.path());
    if (!absent) {
      boolean read =
          PoolReading.items(
              input,
              spec,
              item -> {
                any[0] = true;
                if (item.writer().equals(Writers.REPORT.name())) {
                  raw[0] = item.value();
                }
                forest.add(item);
              });
      if (!read) {
        return null;
      }
    }
    if (raw[0] != null) {
      try {
        ProvisioningReport report = ProvisioningReport.parse(raw[0]);
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
            "the PROVISIONING_REPORT does not read: " + raw[0],
            null,
            null,
            null,
            markers);
      }
    }
    List<SpanNode> open = SpanForest.unfinished(forest.finish());
    if (!open.isEmpty()) {
      SpanNode step = open.get(open.size() - 1);
      return new Verdict(State.RUNNING, null, step.name, step.start, null, markers);
    }
    if (markers.stream().anyMatch(m -> m.endsWith(".ready"))) {
      // reported Ready on an earlier boot of this VM; this boot's pool says nothing of it
      return new Verdict(State.SUCCEEDED, null, null, null, null, markers);
    }
    return new Verdict(State.NOT_STARTED, null, null, null, null, markers);
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
  private List<String> markers() {
    Path root =
        input.source != null && input.source.root != null ? input.source.root : Path.of("/");
    Path directory = root.resolve("var/lib/kvprov");
    List<String> found = new ArrayList<>();
    try (Stream<Path> files = Files.list(directory)) {
      files
          .map(f -> f.getFileName().toString())
          .filter(n -> n.endsWith(".provisioned") || n.endsWith(".ready"))
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
