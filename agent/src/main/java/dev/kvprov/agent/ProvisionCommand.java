package dev.kvprov.agent;

import dev.kvprov.agent.config.AgentConfig;
import dev.kvprov.agent.config.ConfigException;
import dev.kvprov.agent.os.ProcessCommandRunner;
import dev.kvprov.agent.os.SystemRoot;
import dev.kvprov.agent.ovf.ProvisioningMedia;
import dev.kvprov.agent.provision.ProvisioningRun;
import dev.kvprov.kvp.VmId;
import dev.kvprov.otel.KvpTelemetry;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code kvprov provision}: what the first-boot service runs. */
@Command(
    name = "provision",
    mixinStandardHelpOptions = true,
    description = {
      "Provision this VM (what kvprov.service runs at first boot).",
      "",
      "Reads IMDS and the provisioning media, sets the host name, admin user,",
      "password, sudoers, sshd and SSH keys, reports Ready (or the failure) to the",
      "platform, and leaves the whole run as a trace in KVP."
    },
    footer = {
      "",
      "Exit status: 0 provisioned (or nothing to do); 2 configuration error;",
      "10 IMDS; 11 media; 12 host name; 13 user; 14 password; 15 sudoers; 16 sshd;",
      "17 SSH keys; 20 Ready not reported; 30 an internal error (reported like the",
      "others). A marker that cannot be written is a warning: the VM is reported Ready.",
      "",
      "Examples:",
      "  kvprov provision",
      "  kvprov provision --root /mnt/image --config sim.toml --media-dir ./media"
    })
final class ProvisionCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin ConfigOptions options;

  @CommandLine.Mixin MediaOptions mediaOptions;

  @Override
  public Integer call() throws InterruptedException {
    // The stderr mirror writes to the process's stderr: the journal under systemd.
    return run(options, mediaOptions.mediaDir, System.err);
  }

  static int run(ConfigOptions options, Path mediaDir, PrintStream err)
      throws InterruptedException {
    AgentConfig config;
    try {
      config = options.load();
    } catch (ConfigException e) {
      ConfigOptions.print("provision", e.findings(), err::println);
      return ProvisioningRun.Exit.CONFIG.code;
    }
    ConfigOptions.print("provision", config.warnings(), err::println);
    SystemRoot root = new SystemRoot(options.root);
    VmId vmId = VmId.read(options.root);
    try (KvpTelemetry telemetry = Telemetry.from(config, root, vmId, err)) {
      ProcessCommandRunner runner = new ProcessCommandRunner(telemetry.tracer());
      MediaOptions mediaOptions = new MediaOptions();
      mediaOptions.mediaDir = mediaDir;
      ProvisioningMedia media =
          mediaOptions.media(config, options.root, runner, telemetry.tracer());
      return new ProvisioningRun(
              config, root, vmId, media, runner, telemetry, KvprovCommand.VERSION)
          .run()
          .code;
    }
  }
}
