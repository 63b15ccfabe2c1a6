package dev.kvprov.agent;

import dev.kvprov.agent.config.AgentConfig;
import dev.kvprov.agent.os.SystemRoot;
import dev.kvprov.agent.provision.PlatformReport;
import dev.kvprov.agent.state.ProvisioningState;
import dev.kvprov.agent.state.VerdictGenerations;
import dev.kvprov.kvp.IoErrors;
import dev.kvprov.kvp.VmId;
import dev.kvprov.otel.KvpTelemetry;
import dev.kvprov.otel.ProvisioningReport;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kvprov report}: the platform report on its own, for whatever provisioned the VM (Ignition,
 * an initrd, another agent) — Ready, or the failure — to the wireserver and as the {@code
 * PROVISIONING_REPORT} in KVP, traced like {@code provision}.
 */
@Command(
    name = "report",
    mixinStandardHelpOptions = true,
    description = {
      "Report Ready or a failure to the platform, without provisioning.",
      "",
      "For units and agents that provision the VM themselves: an Ignition unit's",
      "OnFailure=, an initrd failure, a script. The report goes to the wireserver",
      "and, as PROVISIONING_REPORT, into KVP (replacing any earlier one)."
    },
    subcommands = {ReportCommand.Ready.class, ReportCommand.Failure.class},
    footer = {
      "",
      "Examples:",
      "  kvprov report ready",
      "  kvprov report failure --reason \"ignition: disk layout\" --step ignition \\",
      "      --detail unit=ignition-disks.service",
      "  kvprov report failure --reason \"initrd: no network\" --kvp-only"
    })
final class ReportCommand implements Runnable {
  /** Supporting keys: plain words, and never one of the report's own fields. */
  private static final Pattern DETAIL_KEY = Pattern.compile("[a-z][a-z0-9_]{0,31}");

  /** The report's own fields, the step, which --step gives, and the network snapshot's. */
  private static final Set<String> RESERVED = reserved();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  private static Set<String> reserved() {
    Set<String> reserved = new java.util.TreeSet<>(ProvisioningReport.ownFields());
    reserved.add("step");
    reserved.add("network");
    return java.util.Collections.unmodifiableSet(reserved);
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** What both kinds of report share: where, and whether only KVP hears it. */
  static final class Common {
    @CommandLine.Mixin ConfigOptions options;

    @Option(
        names = "--kvp-only",
        description = "Write the PROVISIONING_REPORT only; send nothing to the wireserver.")
    boolean kvpOnly;
  }

  @Command(
      name = "ready",
      mixinStandardHelpOptions = true,
      description = {
        "Report Ready: the VM is provisioned.",
        "",
        "Also records this VM as provisioned and reported (the markers kvprov",
        "provision reads), so a later kvprov provision does nothing: `kvprov clean`",
        "forgets them."
      },
      footer = {
        "",
        "",
        "A configuration error is said, and the report goes on with what could be",
        "read of it.",
        "",
        "Examples:",
        "  kvprov report ready",
        "  kvprov report ready --kvp-only --root /mnt/image"
      })
  static final class Ready implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin Common common;

    @Override
    public Integer call() throws InterruptedException {
      return ready(common, spec.commandLine().getErr());
    }
  }

  @Command(
      name = "failure",
      mixinStandardHelpOptions = true,
      description = {
        "Report that provisioning failed: NotReady (ProvisioningFailed) with the",
        "reason to the wireserver, and a PROVISIONING_REPORT with result=error.",
        "Both carry how the network looks (network=links …; route …; dns …)."
      },
      footer = {
        "",
        "",
        "A configuration error is said, and the report goes on with what could be",
        "read of it.",
        "",
        "Examples:",
        "  kvprov report failure --reason \"ignition: disk layout\"",
        "  kvprov report failure --reason \"initrd: no network\" --step initrd \\",
        "      --detail unit=systemd-networkd.service --detail exit_status=1"
      })
  static final class Failure implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin Common common;

    @Option(
        names = "--reason",
        required = true,
        paramLabel = "TEXT",
        description = "What failed, in a few words; the platform shows it.")
    String reason;

    @Option(
        names = "--step",
        paramLabel = "STEP",
        defaultValue = "external",
        description = "Where it failed (default: ${DEFAULT-VALUE}).")
    String step;

    @Option(
        names = "--force",
        description = "Report it even when this VM was reported Ready before.")
    boolean force;

    @Option(
        names = "--detail",
        paramLabel = "KEY=VALUE",
        description = "Supporting data, repeatable; KEY in lower case, e.g. unit=x.service.")
    Map<String, String> details = new LinkedHashMap<>();

    @Override
    public Integer call() throws InterruptedException {
      if (reason.isBlank()) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--reason is empty");
      }
      for (String key : details.keySet()) {
        if (!DETAIL_KEY.matcher(key).matches() || RESERVED.contains(key)) {
          throw new CommandLine.ParameterException(
              spec.commandLine(),
              "--detail "
                  + key
                  + "=…: a key is a lower-case word (a-z, 0-9, _) and not one of the report's own"
                  + " fields ("
                  + String.join(", ", RESERVED)
                  + ")");
        }
      }
      Map<String, String> supporting = new LinkedHashMap<>();
      supporting.put("step", step);
      supporting.putAll(details);
      return failure(common, reason.strip(), supporting, force, spec.commandLine().getErr());
    }
  }

  static int ready(Common common, PrintWriter err) throws InterruptedException {
    return report(
        common,
        common.options.loadOrFallback("report", err),
        err,
        "ready",
        (platform, context) -> {
          if (!common.kvpOnly && !platform.ready()) {
            return false;
          }
          ProvisioningState state =
              new ProvisioningState(
                  context.root().resolve(context.config().stateDirectory().toString()));
          try {
            state.markProvisioned(context.vmId());
            if (!common.kvpOnly) {
              state.markReportedReady(context.vmId());
            }
          } catch (IOException e) {
            err.println(
                "kvprov report: warning: Ready was reported, but the markers could not be"
                    + " written: "
                    + IoErrors.reason(e));
          }
          return platform.succeeded();
        });
  }

  static int failure(
      Common common, String reason, Map<String, String> supporting, boolean force, PrintWriter err)
      throws InterruptedException {
    AgentConfig config = common.options.loadOrFallback("report", err);
    Path state = new SystemRoot(common.options.root).resolve(config.stateDirectory().toString());
    VmId vmId = new ProvisioningState(state).vmId(VmId.read(common.options.root));
    if (!force && new ProvisioningState(state).next(vmId) == ProvisioningState.Next.NOTHING) {
      // A unit failing on a later boot did not fail the provisioning the platform saw succeed.
      err.println(
          "kvprov report: this VM was provisioned and reported Ready already; a failure now is"
              + " not a failed provisioning (--force reports it all the same)");
      return ExitCode.USAGE.code;
    }
    return report(
        common,
        config,
        err,
        "failure",
        (platform, context) -> platform.failed(reason, supporting, common.kvpOnly));
  }

  /** The configuration, root and VM a report is made for. */
  private record Context(AgentConfig config, SystemRoot root, VmId vmId) {}

  private interface Outcome {
    boolean send(PlatformReport platform, Context context) throws InterruptedException;
  }

  /**
   * Sends one report, traced. Messages go to {@code err}; the trace's own stderr mirror to the
   * process's stderr (the journal under systemd), as for {@code provision}.
   */
  private static int report(
      Common common, AgentConfig config, PrintWriter err, String kind, Outcome outcome)
      throws InterruptedException {
    SystemRoot root = new SystemRoot(common.options.root);
    // Without SMBIOS, the id IMDS gave provision, as it remembered it beside the markers.
    VmId vmId =
        new ProvisioningState(root.resolve(config.stateDirectory().toString()))
            .vmId(VmId.read(common.options.root));
    VerdictGenerations verdicts = Telemetry.verdicts(config, root);
    try (KvpTelemetry telemetry = Telemetry.from(config, root, vmId, System.err, verdicts)) {
      Span span =
          telemetry
              .tracer()
              .spanBuilder("report")
              .setAttribute("vm.id", vmId.value())
              .setAttribute("result", kind)
              .setAttribute("kvp_only", common.kvpOnly)
              .startSpan();
      try (Scope ignored = span.makeCurrent()) {
        PlatformReport platform =
            new PlatformReport(
                config.wireserver(), telemetry, verdicts, vmId, KvprovCommand.VERSION);
        // A failure report (or Ready not accepted) carries the network as it is: the one snapshot
        // a VM that failed outside kvprov gets. --kvp-only sends nothing, not even the probe's
        // TCP connection.
        platform.withNetworkSnapshot(
            root,
            () -> "not asked",
            common.kvpOnly ? Optional.of("not asked (--kvp-only)") : Optional.empty());
        boolean sent = outcome.send(platform, new Context(config, root, vmId));
        if (!sent) {
          span.setStatus(StatusCode.ERROR, "the report did not reach the platform");
          err.println("kvprov report: the " + kind + " report did not reach the platform");
          return ExitCode.REPORT.code;
        }
        return ExitCode.OK.code;
      } finally {
        span.end();
      }
    }
  }
}
