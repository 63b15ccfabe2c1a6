package dev.kvprov.agent;

import dev.kvprov.agent.config.AgentConfig;
import dev.kvprov.agent.config.ConfigException;
import dev.kvprov.agent.imds.ImdsClient;
import dev.kvprov.agent.imds.ImdsException;
import dev.kvprov.agent.imds.ImdsInstance;
import dev.kvprov.agent.os.ProcessCommandRunner;
import dev.kvprov.agent.ovf.OvfEnvironment;
import dev.kvprov.agent.ovf.OvfException;
import dev.kvprov.agent.ovf.ProvisioningMedia;
import dev.kvprov.kvp.BootClock;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.VmId;
import dev.kvprov.otel.KvpTelemetry;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kvprov fetch}: everything provisioning would read — configuration, instance metadata and
 * the provisioning media — traced, without changing anything. Secrets are never printed.
 */
@Command(
    name = "fetch",
    mixinStandardHelpOptions = true,
    description = {
      "Read what provisioning would read (config, IMDS, media); change nothing.",
      "",
      "Read the configuration, fetch IMDS and read ovf-env.xml, as provisioning",
      "would, and print what they say (never a password or custom data). Changes",
      "nothing on the system."
    },
    footer = {
      "",
      "Examples:",
      "  kvprov fetch                                  on an Azure VM",
      "  kvprov fetch --config sim.toml --media-dir ./media   against kvprov simulate"
    })
final class FetchCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin ConfigOptions options;

  @CommandLine.Mixin MediaOptions mediaOptions;

  @Option(
      names = "--kvp-dir",
      paramLabel = "DIR",
      description = "Also write the trace to the KVP pool in DIR.")
  Path kvpDir;

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    AgentConfig cfg;
    // Read before telemetry exists (telemetry is configured by it): traced afterwards.
    java.time.Instant configStart = java.time.Instant.now();
    try {
      cfg = options.load();
    } catch (ConfigException e) {
      ConfigOptions.print("fetch", e.findings(), err::println);
      return ExitCode.FAILED.code;
    }
    ConfigOptions.print("fetch", cfg.warnings(), err::println);
    KvpTelemetry.Builder telemetry =
        KvpTelemetry.builder()
            .serviceName("kvprov")
            .serviceVersion(KvprovCommand.VERSION)
            .vmId(VmId.read(options.root));
    try {
      telemetry.bootClock(BootClock.read(options.root));
    } catch (IOException e) {
      err.println("kvprov fetch: no boot clock under " + options.root + ": " + e.getMessage());
    }
    if (kvpDir != null) {
      telemetry.kvp(PoolFile.open(kvpDir, 1));
    }
    java.time.Instant configEnd = java.time.Instant.now();
    try (KvpTelemetry t = telemetry.build().clearStalePool().reportSdkLogging().closeOnShutdown()) {
      t.tracer()
          .spanBuilder("config.load")
          .setStartTimestamp(configStart)
          .setAttribute("config.warnings", (long) cfg.warnings().size())
          .startSpan()
          .end(configEnd);
      ImdsInstance instance = new ImdsClient(cfg.imds(), t.tracer()).fetch();
      ImdsInstance.Compute compute = instance.compute();
      out.println(
          "IMDS:  vm "
              + compute.vmId()
              + " ("
              + compute.name()
              + ", "
              + compute.vmSize()
              + ", "
              + compute.location()
              + ")");
      out.println(
          "       admin "
              + compute.osProfile().adminUsername()
              + ", host "
              + compute.osProfile().computerName()
              + ", password login "
              + (Boolean.TRUE.equals(compute.osProfile().disablePasswordAuthentication())
                  ? "disabled"
                  : "allowed")
              + ", "
              + compute.publicKeys().size()
              + " SSH key(s)");
      if (cfg.mediaEnabled()) {
        ProvisioningMedia media =
            mediaOptions.media(cfg, options.root, new ProcessCommandRunner(t.tracer()), t.tracer());
        OvfEnvironment env = media.read();
        env.maskIn(t.redactor());
        out.println(
            "media: user "
                + env.userName()
                + ", host "
                + env.hostName()
                + ", password "
                + (env.password().isPresent()
                    ? "given (" + env.password().get().length() + " chars, not shown)"
                    : "none")
                + ", custom data "
                + (env.customData().isPresent() ? "given (not shown)" : "none")
                + ", "
                + env.sshKeys().size()
                + " SSH key(s)");
        env.clearSecrets();
      }
      return ExitCode.OK.code;
    } catch (ImdsException | OvfException e) {
      err.println("kvprov fetch: " + e.getMessage());
      return ExitCode.FAILED.code;
    }
  }
}
