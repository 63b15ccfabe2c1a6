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
import dev.kvprov.kvp.VmId;
import dev.kvprov.otel.KvpTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import java.io.PrintStream;
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
      "tag kvprov.service checks): --force runs it anyway, --root acts on an image.",
      "A configuration error is reported to the platform as a failure too, with the",
      "endpoints that could be read (else the built-in ones)."
    },
    footer = {
      "",
      "Steps: hostname, user, password, sudoers, sshd, ssh-keys. A first run with",
      "--only or --skip is this VM's provisioning: it is reported Ready and the",
      "markers are written (later full runs do nothing; `kvprov clean` forgets).",
      "Chosen steps always run, even on a VM provisioned before; the platform then",
      "hears nothing more (a failure goes to KVP only).",
      "",
      "Exit status: 0 provisioned (or nothing to do); 2 configuration error, or",
      "refused (not root, not Azure); 10 IMDS; 11 media; 12 host name; 13 user;",
      "14 password; 15 sudoers; 16 sshd; 17 SSH keys; 18 a pre-provisioned VM of a",
      "kind not supported (Savable); 20 Ready not reported; 30 an internal error",
      "(reported like the others). A marker that cannot be written is a warning:",
      "the VM is reported Ready.",
      "",
      "Examples:",
      "  kvprov provision",
      "  kvprov provision --skip user,password,sudoers   (Ignition made the user)",
      "  kvprov provision --only ssh-keys",
      "  kvprov provision --root /mnt/image --config sim.toml --media-dir ./media"
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
      description = "Provision the running system even off Azure or without root.")
  boolean force;

  @Override
  public Integer call() throws InterruptedException {
    StartupPhases.mark("cli");
    Set<Step> steps;
    try {
      steps = selected(only, skip);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    if (!force && new SystemRoot(options.root).isLive()) {
      Optional<String> refusal = AzureHost.refusal(Path.of("/sys"), Path.of("/proc"));
      if (refusal.isPresent()) {
        spec.commandLine().getErr().println("kvprov provision: " + refusal.get());
        return ProvisioningRun.Exit.CONFIG.code;
      }
    }
    // The stderr mirror writes to the process's stderr: the journal under systemd.
    return run(options, mediaOptions.mediaDir, steps, given(groups), System.err);
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
    SystemRoot root = new SystemRoot(options.root);
    VmId vmId = VmId.read(options.root);
    AgentConfig config;
    try {
      config = options.load();
    } catch (ConfigException e) {
      ConfigOptions.print("provision", e.findings(), err::println);
      reportConfigurationError(e, root, vmId, err);
      return ProvisioningRun.Exit.CONFIG.code;
    }
    ConfigOptions.print("provision", config.warnings(), err::println);
    StartupPhases.mark("config");
    try (KvpTelemetry telemetry = Telemetry.from(config, root, vmId, err)) {
      ProcessCommandRunner runner = new ProcessCommandRunner(telemetry.tracer());
      MediaOptions mediaOptions = new MediaOptions();
      mediaOptions.mediaDir = mediaDir;
      ProvisioningMedia media =
          mediaOptions.media(config, options.root, runner, telemetry.tracer());
      int exit =
          new ProvisioningRun(config, root, vmId, media, runner, telemetry, KvprovCommand.VERSION)
              .steps(steps)
              .groups(groups)
              .run()
              .code;
      StartupPhases.mark("ran");
      return exit;
    } finally {
      StartupPhases.mark("closed");
    }
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
    try (KvpTelemetry telemetry = Telemetry.from(config, root, vmId, err)) {
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
        supporting.put("exit_code", String.valueOf(ProvisioningRun.Exit.CONFIG.code));
        supporting.put("detail", e.getMessage());
        // An image's root (an image pipeline, a test) tells a wireserver only one its files name:
        // the built-in one belongs to whatever machine runs the pipeline.
        boolean kvpOnly = !root.isLive() && !config.wireserverConfigured();
        new PlatformReport(config.wireserver(), telemetry, vmId, KvprovCommand.VERSION)
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
