package dev.kvprov.inspect.cli;

import dev.kvprov.inspect.pool.PoolSource;
import dev.kvprov.inspect.render.Style;
import dev.kvprov.inspect.spans.BootSection;
import dev.kvprov.inspect.text.Json;
import dev.kvprov.inspect.text.Text;
import dev.kvprov.otel.ProvisioningStatus;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvp status}: where provisioning is, from the pool and kvprov's markers. */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description = {
      "Where provisioning is: not started, running, succeeded or failed.",
      "",
      "Running says the step it is at, failed says why. Read from the pool and",
      "kvprov's markers in /var/lib/kvprov (under --root R: R's). Like cloud-init",
      "status --long.",
      "",
      "--wait follows the pool until there is a verdict, succeeded or failed; a pool",
      "not written yet (--dir or --root alike) is not started, and waited for. On a",
      "terminal, a line on stderr says where it is while it waits."
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
    Progress progress =
        new Progress(waitForVerdict && Style.isTerminal(2), spec.commandLine().getErr());
    try {
      while (true) {
        ProvisioningStatus verdict = look();
        if (verdict == null) {
          return ExitCode.IO.code;
        }
        boolean timedOut = timeout != null && System.nanoTime() - started >= timeout.toNanos();
        if (verdict.decided() || !waitForVerdict || timedOut) {
          progress.end();
          print(verdict);
          return verdict.exitCode();
        }
        progress.show(verdict, Duration.ofNanos(System.nanoTime() - started));
        long wait = interval.toNanos();
        if (timeout != null) {
          wait = Math.min(wait, Math.max(1, timeout.toNanos() - (System.nanoTime() - started)));
        }
        if (stop.await(wait, TimeUnit.NANOSECONDS)) {
          progress.end();
          print(look());
          return NO_VERDICT;
        }
      }
    } finally {
      restore.run();
    }
  }

  /** One look at the pool and the markers; null when the pool cannot be read (said). */
  private ProvisioningStatus look() {
    if (input.source != null
        && input.source.root != null
        && !Files.isDirectory(input.source.root)) {
      // a root is a mounted disk: one that is not there is a typo or no mount, not a boot to come
      spec.commandLine()
          .getErr()
          .println(
              "kvp status: "
                  + input.source.root
                  + ": no such directory; is the disk mounted there?");
      return null;
    }
    List<String> markers = markers();
    boolean live = isLive();
    if (!input.fromStdin() && !input.hostExport() && !Files.exists(input.path())) {
      if (input.source != null && input.source.file != null) {
        // a file named by hand that is not there is a typo, not a boot yet to come
        spec.commandLine()
            .getErr()
            .println("kvp status: " + input.describe() + ": no such file or directory");
        return null;
      }
      // --dir and --root alike: nothing written yet, which --wait waits for as watch does
      return ProvisioningStatus.notStarted(markers);
    }
    if (live && ProvisioningStatus.nothingThisBoot(input.path())) {
      return ProvisioningStatus.notStarted(markers);
    }
    List<BootSection> boots = PoolReading.boots(input, spec);
    if (boots == null) {
      return null;
    }
    // the last boot decides: an earlier boot's report says nothing of how the last one ended
    if (boots.isEmpty()) {
      return ProvisioningStatus.notStarted(markers);
    }
    BootSection last = boots.get(boots.size() - 1);
    List<ProvisioningStatus.OpenSpan> open =
        last.unfinished().stream()
            .map(n -> new ProvisioningStatus.OpenSpan(n.name, n.start))
            .toList();
    return ProvisioningStatus.of(last.report(), open, last.alreadyProvisioned(), markers);
  }

  /** The VM's own pool on the running system: the default, not a file, a disk or an export. */
  private boolean isLive() {
    return input.source == null
        || input.source.file == null && input.source.root == null && input.source.hostXml == null;
  }

  /**
   * kvprov's markers of this VM (its id as DMI gives it, else as kvprov remembered IMDS's): on the
   * running system or a rescued disk only; a file or an export copied from elsewhere has none here.
   */
  private List<String> markers() {
    if (!isLive() && input.source.root == null) {
      return List.of();
    }
    Path root =
        input.source != null && input.source.root != null ? input.source.root : Path.of("/");
    // on the running system, this VM's only (an image may carry the VM it was captured from);
    // a rescued disk's are its own VM's
    Path state = root.resolve("var/lib/kvprov");
    if (PoolSource.wayOut(root, "var/lib/kvprov").isPresent()) {
      // on a rescued disk, a link into the rescue machine: its markers are not this VM's (the
      // link is said once, with the archives below it, which are not read either)
      return List.of();
    }
    return ProvisioningStatus.markers(state, isLive() ? vmId(root, state).value() : null);
  }

  /**
   * This VM's id: DMI's; without DMI (a container, systemd-nspawn) the one IMDS gave, which kvprov
   * remembers in its state directory's {@code vm-id}.
   */
  private static dev.kvprov.kvp.VmId vmId(Path root, Path state) {
    dev.kvprov.kvp.VmId smbios = dev.kvprov.kvp.VmId.read(root);
    if (smbios.isKnown()) {
      return smbios;
    }
    Path remembered = state.resolve("vm-id");
    try {
      if (Files.isRegularFile(remembered, java.nio.file.LinkOption.NOFOLLOW_LINKS)
          && Files.size(remembered) < 256) {
        dev.kvprov.kvp.VmId id =
            dev.kvprov.kvp.VmId.parse(Files.readString(remembered), remembered.toString());
        return id.isKnown() ? id : smbios;
      }
    } catch (java.io.IOException | RuntimeException e) {
      // unreadable: as if never remembered
    }
    return smbios;
  }

  /**
   * {@code --wait}'s one line on a terminal, rewritten in place as the wait goes on: where
   * provisioning is and for how long kvp has waited. Only when stderr is a terminal (a log or a
   * pipe gets nothing), and erased before the verdict is printed.
   */
  private static final class Progress {
    private final boolean shown;
    private final PrintWriter err;
    private boolean drawn;

    Progress(boolean shown, PrintWriter err) {
      this.shown = shown;
      this.err = err;
    }

    void show(ProvisioningStatus now, Duration waited) {
      if (!shown) {
        return;
      }
      String where =
          now.state().words() + (now.step() == null ? "" : " (" + Text.printable(now.step()) + ")");
      String line =
          "kvp status: waiting for a verdict, "
              + waited.toSeconds()
              + "s: "
              + where
              + " (Ctrl-C stops)";
      int columns = Style.columns(false);
      // one column short of the edge: a line that wrapped could not be rewritten in place
      err.print(
          "\r" + Text.cut(line, (columns == Integer.MAX_VALUE ? 80 : columns) - 1) + "\u001b[K");
      err.flush();
      drawn = true;
    }

    void end() {
      if (drawn) {
        err.print("\r\u001b[K");
        err.flush();
        drawn = false;
      }
    }
  }

  private void print(ProvisioningStatus v) {
    if (v == null) {
      return;
    }
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      out.println(Json.write(Json.tree(v.fields(input.describe()))));
    } else {
      v.lines(input.describe()).forEach(out::println);
    }
    out.flush();
  }
}
