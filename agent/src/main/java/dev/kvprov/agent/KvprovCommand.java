package dev.kvprov.agent;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
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
      "",
      "Each command's --help gives its other exit statuses.",
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
   * boot runs one of them (docs/performance-log.md, "The command model").
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

  /** Runs {@code args} through picocli: its exit status. */
  static int execute(String[] args) {
    return commandLine(args).execute(args);
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
    withExitStatuses(cli);
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          commandLine.getErr().println("kvprov: " + e.getMessage());
          return ExitCode.FAILED.code;
        });
    return cli;
  }

  /**
   * Heads each command's footer with its exit statuses, from the one definition ({@link ExitCode});
   * the annotations keep the notes and examples.
   */
  private static void withExitStatuses(CommandLine command) {
    CommandLine.Model.UsageMessageSpec usage = command.getCommandSpec().usageMessage();
    List<String> footer = new ArrayList<>(List.of(""));
    footer.addAll(ExitCode.footer(name(command)));
    List<String> rest = List.of(usage.footer());
    int blank = 0;
    while (blank < rest.size() && rest.get(blank).isEmpty()) {
      blank++;
    }
    if (blank < rest.size()) {
      footer.add("");
      footer.addAll(rest.subList(blank, rest.size()));
    }
    usage.footer(footer.toArray(String[]::new));
    command.getSubcommands().values().forEach(KvprovCommand::withExitStatuses);
  }

  /** A command's name under kvprov ({@code report ready}); {@code kvprov} for the root. */
  static String name(CommandLine command) {
    String qualified = command.getCommandSpec().qualifiedName();
    return qualified.equals("kvprov") ? qualified : qualified.substring("kvprov ".length());
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
