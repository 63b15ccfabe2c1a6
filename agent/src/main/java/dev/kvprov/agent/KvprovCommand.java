package dev.kvprov.agent;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The root command: wires the subcommands and maps failures to exit codes in one place. */
@Command(
    name = "kvprov",
    mixinStandardHelpOptions = true,
    versionProvider = KvprovCommand.Version.class,
    description = "First-boot provisioning for Linux on Azure, traced end to end into Hyper-V KVP.",
    subcommands = {
      ProvisionCommand.class,
      ReportCommand.class,
      MetadataCommand.class,
      RenderIgnitionCommand.class,
      CleanCommand.class,
      StatusCommand.class,
      DemoCommand.class,
      ConfigCommand.class,
      FetchCommand.class,
      SimulateCommand.class,
      LateRecordsCommand.class
    },
    footer = {
      "",
      "Exit status: 2 usage error; each command's --help gives the others.",
      "",
      "Examples:",
      "  kvprov demo                      a whole first boot against a simulated Azure",
      "  kvprov config --check            validate /etc/kvprov (for image builds)",
      "  kvprov status --wait             wait for provisioning to end",
      "  kvprov report failure --reason \"ignition: disk layout\"",
      "  kvprov metadata --json           IMDS and the media, for scripts",
      "  kvprov clean --logs              before capturing an image"
    })
final class KvprovCommand implements Runnable {
  static final String VERSION = "0.1.0";

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new KvprovCommand());
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          commandLine.getErr().println("kvprov: " + e.getMessage());
          return 1;
        });
    return cli;
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"kvprov " + VERSION};
    }
  }
}
