package dev.kvprov.agent;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The root command: wires the subcommands and maps failures to exit codes in one place. */
@Command(
    name = "kvprov",
    mixinStandardHelpOptions = true,
    versionProvider = KvprovCommand.Version.class,
    description = "First-boot provisioning for Linux on Azure, traced end to end into Hyper-V KVP.",
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

  /**
   * The subcommands, in the order the help lists them. Made on demand: picocli builds a command's
   * whole model (every option of every subcommand, by reflection) when it is added, and a first
   * boot runs one of them — building all eleven cost ~115 ms of its start (docs/performance.md).
   */
  private static final Map<String, Supplier<Object>> SUBCOMMANDS = subcommands();

  private static Map<String, Supplier<Object>> subcommands() {
    Map<String, Supplier<Object>> commands = new LinkedHashMap<>();
    commands.put("provision", ProvisionCommand::new);
    commands.put("report", ReportCommand::new);
    commands.put("metadata", MetadataCommand::new);
    commands.put("render-ignition", RenderIgnitionCommand::new);
    commands.put("clean", CleanCommand::new);
    commands.put("status", StatusCommand::new);
    commands.put("demo", DemoCommand::new);
    commands.put("config", ConfigCommand::new);
    commands.put("fetch", FetchCommand::new);
    commands.put("simulate", SimulateCommand::new);
    commands.put("late-records", LateRecordsCommand::new);
    return commands;
  }

  /** The whole command tree: for the root's help, and anything not naming one subcommand. */
  static CommandLine commandLine() {
    return commandLine(new String[0]);
  }

  /**
   * The command tree {@code args} need: the root with only the subcommand they name, or with all of
   * them when they name none (the root's help, a typo that picocli then answers).
   */
  static CommandLine commandLine(String[] args) {
    CommandLine cli = new CommandLine(new KvprovCommand());
    String named = args.length > 0 ? args[0] : "";
    SUBCOMMANDS.forEach(
        (name, command) -> {
          if (!SUBCOMMANDS.containsKey(named) || name.equals(named)) {
            cli.addSubcommand(name, command.get());
          }
        });
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
