package dev.kvprov.agent;

import dev.kvprov.agent.config.AgentConfig;
import dev.kvprov.agent.config.ConfigException;
import dev.kvprov.agent.config.ConfigFinding;
import dev.kvprov.agent.os.ProcessCommandRunner;
import dev.kvprov.agent.os.SystemRoot;
import dev.kvprov.agent.ovf.ProvisioningMedia;
import dev.kvprov.agent.provision.PlatformReport;
import dev.kvprov.agent.provision.ProvisioningRun;
import dev.kvprov.agent.provision.steps.Step;
import dev.kvprov.agent.state.ProvisioningState;
import dev.kvprov.agent.state.VerdictGenerations;
import dev.kvprov.kvp.VmId;
import dev.kvprov.otel.KvpTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvprov provision}: what the first-boot service runs. */
@Command(
    name = "provision",
    mixinStandardHelpOptions = true,
    description = {
      "Provision this VM (what kvprov.service runs at first boot).",
      "",
      "Reads IMDS and the provisioning media, sets the host name, admin user,",
      "password, sudoers, sshd and SSH keys, reports Ready (or the failure) to the",
      "platform, and leaves the whole run as a trace in KVP.",
      "",
      "On the running system it must run as root on an Azure VM (the chassis asset",
      "tag kvprov.service checks), and not in a chroot (/ not PID 1's root, as in an",
      "image build): --force runs it anyway, --root acts on an image.",
      "--offline (an image build) reads ovf-env.xml from --media-dir alone and tells",
      "no platform anything: no IMDS, no wireserver, no marker; the image's first",
      "boot provisions and reports Ready.",
      "A configuration error is reported to the platform as a failure too (not",
      "offline), with the endpoints that could be read (else the built-in ones)."
    },
    footer = {
      "",
      "Steps: hostname, user, password, sudoers, sshd, ssh-keys. A first run with",
      "--only or --skip is this VM's provisioning: it is reported Ready and the",
      "markers are written (later full runs do nothing; `kvprov clean` forgets).",
      "Chosen steps always run, even on a VM provisioned before; the platform then",
      "hears nothing more (a failure goes to KVP only).",
      "",
      "A marker that cannot be written is a warning: the VM is reported Ready.",
      "Without SMBIOS the VM id is IMDS's compute.vmId (remembered in the state",
      "directory); with neither, no marker.",
      "",
      "Examples:",
      "  kvprov provision",
      "  kvprov provision --skip user,password,sudoers   (Ignition made the user)",
      "  kvprov provision --only ssh-keys",
      "  kvprov provision --root /mnt/image --config sim.toml --media-dir ./media",
      "  kvprov provision --root /mnt/image --offline --media-dir ./media"
    })
final class ProvisionCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin ConfigOptions options;

  @CommandLine.Mixin MediaOptions mediaOptions;

  @Option(
      names = "--only",
      paramLabel = "STEP[,STEP…]",
      description = "Run only these steps (IMDS, the media and the report still happen).")
  String only;

  @Option(names = "--skip", paramLabel = "STEP[,STEP…]", description = "Run every step but these.")
  String skip;

  @Option(
      names = "--groups",
      split = ",",
      paramLabel = "GROUP[,GROUP…]",
      description =
          "The admin user's supplementary groups, instead of user.groups (azure-init's"
              + " option); may be repeated; \"\" for none.")
  List<String> groups;

  @Option(
      names = "--force",
      description = "Provision the running system even off Azure, without root, or in a chroot.")
  boolean force;

  @Option(
      names = "--offline",
      description =
          "Touch no platform (an image build): ovf-env.xml from --media-dir; no IMDS, no"
              + " wireserver, no marker (provisioning.offline).")
  boolean offline;

  /** Where proc is mounted: where PID 1's root is looked at. */
  Path proc = Path.of("/proc");

  @Override
  public Integer call() throws InterruptedException {
    StartupPhases.mark("cli");
    Set<Step> steps;
    try {
      steps = selected(only, skip);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    return provision(steps, spec.commandLine().getErr());
  }

  /**
   * After the command line (picocli's, or {@link ProvisionLine}'s): the checks of the running
   * system, then the run; a refusal is said on {@code err}.
   */
  int provision(Set<Step> steps, PrintWriter err) throws InterruptedException {
    if (!force && new SystemRoot(options.root).isLive()) {
      // A chroot first: on Azure too, a build chroot is no VM to rename.
      Optional<String> refusal =
          new SystemRoot(options.root)
              .chroot(proc)
              .map(
                  why ->
                      why
                          + ", not the running system; use --root DIR to provision an image, or"
                          + " --force")
              .or(() -> AzureHost.refusal(Path.of("/sys"), proc));
      if (refusal.isPresent()) {
        err.println("kvprov provision: " + refusal.get());
        return ExitCode.USAGE.code;
      }
    }
    // The stderr mirror writes to the process's stderr: the journal under systemd.
    return run(options, mediaOptions.mediaDir, steps, given(groups), offline, System.err);
  }

  /** {@code --groups}, if given; azure-init's {@code --groups ""} means no group at all. */
  static Optional<List<String>> given(List<String> groups) {
    return Optional.ofNullable(groups)
        .map(g -> g.stream().map(String::strip).filter(n -> !n.isEmpty()).toList());
  }

  /** The steps {@code --only} and {@code --skip} leave; both at once is a usage error. */
  static Set<Step> selected(String only, String skip) {
    if (only != null && skip != null) {
      throw new IllegalArgumentException("--only and --skip cannot be used together");
    }
    if (only != null) {
      Set<Step> steps = Step.parse(only);
      if (steps.isEmpty()) {
        throw new IllegalArgumentException("--only names no step; the steps are " + Step.names());
      }
      return steps;
    }
    Set<Step> steps = EnumSet.allOf(Step.class);
    if (skip != null) {
      steps.removeAll(Step.parse(skip));
    }
    return steps;
  }

  static int run(ConfigOptions options, Path mediaDir, PrintStream err)
      throws InterruptedException {
    return run(options, mediaDir, EnumSet.allOf(Step.class), err);
  }

  static int run(ConfigOptions options, Path mediaDir, Set<Step> steps, PrintStream err)
      throws InterruptedException {
    return run(options, mediaDir, steps, Optional.empty(), err);
  }

  /** With {@code --groups}, when given, in place of {@code user.groups}. */
  static int run(
      ConfigOptions options,
      Path mediaDir,
      Set<Step> steps,
      Optional<List<String>> groups,
      PrintStream err)
      throws InterruptedException {
    return run(options, mediaDir, steps, groups, false, err);
  }

  /**
   * With {@code --groups}, when given, in place of {@code user.groups}; {@code --offline} (or
   * {@code provisioning.offline}) for an image build.
   */
  static int run(
      ConfigOptions options,
      Path mediaDir,
      Set<Step> steps,
      Optional<List<String>> groups,
      boolean offline,
      PrintStream err)
      throws InterruptedException {
    SystemRoot root = new SystemRoot(options.root);
    VmId smbios = VmId.read(options.root);
    AgentConfig config;
    try {
      config = options.load();
    } catch (ConfigException e) {
      ConfigOptions.print("provision", e.findings(), err::println);
      if (offline || e.readable().offline()) {
        return ExitCode.USAGE.code; // an image build: no platform to tell
      }
      reportConfigurationError(e, root, vmIdOf(smbios, e.readable(), root), err);
      return ExitCode.USAGE.code;
    }
    ConfigOptions.print("provision", config.warnings(), err::println);
    boolean isOffline = offline || config.offline();
    if (isOffline && mediaDir == null) {
      err.println(
          "kvprov provision: an offline run reads ovf-env.xml from --media-dir DIR, which was"
              + " not given");
      return ExitCode.USAGE.code;
    }
    // Without SMBIOS, the id IMDS gave an earlier boot: the records carry it from the start.
    VmId vmId = isOffline ? smbios : vmIdOf(smbios, config, root);
    StartupPhases.mark("config");
    VerdictGenerations verdicts = Telemetry.verdicts(config, root);
    try (KvpTelemetry telemetry = Telemetry.from(config, root, vmId, err, verdicts)) {
      ProcessCommandRunner runner = new ProcessCommandRunner(telemetry.tracer());
      MediaOptions mediaOptions = new MediaOptions();
      mediaOptions.mediaDir = mediaDir;
      ProvisioningMedia media =
          mediaOptions.media(config, options.root, runner, telemetry.tracer());
      int exit =
          ExitCode.of(
                  new ProvisioningRun(
                          config,
                          root,
                          vmId,
                          media,
                          runner,
                          telemetry,
                          verdicts,
                          KvprovCommand.VERSION)
                      .steps(steps)
                      .groups(groups)
                      .offline(isOffline)
                      .run())
              .code;
      StartupPhases.mark("ran");
      return exit;
    } finally {
      StartupPhases.mark("closed");
    }
  }

  /** SMBIOS's id, else the one IMDS gave an earlier boot (remembered in the state directory). */
  private static VmId vmIdOf(VmId smbios, AgentConfig config, SystemRoot root) {
    return new ProvisioningState(root.resolve(config.stateDirectory().toString())).vmId(smbios);
  }

  /**
   * A VM that cannot read its configuration knows it failed: the platform hears so now, instead of
   * waiting out its whole window. With what of the configuration could be read (else the built-in
   * endpoints), unless this VM was provisioned and reported Ready before: a later boot's broken
   * drop-in is not a failed provisioning.
   */
  private static void reportConfigurationError(
      ConfigException e, SystemRoot root, VmId vmId, PrintStream err) throws InterruptedException {
    AgentConfig config = e.readable();
    if (new ProvisioningState(root.resolve(config.stateDirectory().toString())).next(vmId)
        == ProvisioningState.Next.NOTHING) {
      err.println("kvprov provision: this VM was provisioned already; nothing is reported");
      return;
    }
    VerdictGenerations verdicts = Telemetry.verdicts(config, root);
    try (KvpTelemetry telemetry = Telemetry.from(config, root, vmId, err, verdicts)) {
      Span span =
          telemetry
              .tracer()
              .spanBuilder("provision")
              .setAttribute("vm.id", vmId.value())
              .setAttribute("next", "CONFIGURATION_ERROR")
              .startSpan();
      try (Scope ignored = span.makeCurrent()) {
        span.setStatus(StatusCode.ERROR, e.getMessage());
        Map<String, String> supporting = new LinkedHashMap<>();
        supporting.put("step", "config");
        supporting.put("exit_code", String.valueOf(ExitCode.USAGE.code));
        supporting.put("detail", e.getMessage());
        // An image's root (an image pipeline, a test) tells a wireserver only one its files name:
        // the built-in one belongs to whatever machine runs the pipeline.
        boolean kvpOnly = !root.isLive() && !config.wireserverConfigured();
        new PlatformReport(config.wireserver(), telemetry, verdicts, vmId, KvprovCommand.VERSION)
            .failed(configurationReason(e), supporting, kvpOnly);
      } finally {
        span.end();
      }
    }
  }

  /** {@code Configuration error in FILE:LINE}: where to look, short enough for an alert. */
  static String configurationReason(ConfigException e) {
    return e.findings().stream()
        .filter(ConfigFinding::isError)
        .findFirst()
        .map(f -> "Configuration error in " + f.file() + (f.line() > 0 ? ":" + f.line() : ""))
        .orElse("Configuration error");
  }
}
