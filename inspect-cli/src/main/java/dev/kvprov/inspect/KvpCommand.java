package dev.kvprov.inspect;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code kvp}: the root command; wires the subcommands. */
@Command(
    name = "kvp",
    mixinStandardHelpOptions = true,
    version = "kvp 0.1.0",
    description = "Read any Hyper-V KVP pool: kvprov's, azure-init's, cloud-init's.",
    subcommands = {
      ListCommand.class,
      TreeCommand.class,
      BlameCommand.class,
      ReportCommand.class,
      DoctorCommand.class,
      DecodeCommand.class,
      WatchCommand.class,
      ItemCommands.Get.class,
      ItemCommands.Set.class,
      ItemCommands.Delete.class
    },
    footer = {
      "",
      "Exit status: 0 ok; 1 problems found, a failure report, or nothing found; 2 usage; 3 I/O.",
      "",
      "Examples:",
      "  kvp list --json",
      "  kvp report --root /mnt/rescued-disk"
    })
public final class KvpCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  static CommandLine commandLine() {
    return new CommandLine(new KvpCommand());
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** The entry point of {@code bin/kvp}. */
  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }
}
