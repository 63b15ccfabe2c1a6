package dev.kvprov.inspect.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvprov.inspect.pool.Phases;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code kvp}: the root command; wires the subcommands. Its model is built in code ({@link
 * CommandModels}), as the write commands' are; the other commands' come from their annotations.
 */
public final class KvpCommand implements Runnable {
  private CommandSpec spec;

  private KvpCommand() {}

  /**
   * A subcommand: its name, and how it joins kvp's command line. Named here so that a run finds the
   * one it needs without reading every command's annotations.
   */
  private record Subcommand(String name, Consumer<CommandLine> addTo) {
    static Subcommand annotated(String name, Class<?> command) {
      return new Subcommand(name, cli -> cli.addSubcommand(command));
    }

    /**
     * {@code model} a lambda, not a method reference: a reference is resolved when the table is
     * made, which loads and verifies every command's class, and verifying {@code tree}'s loads
     * Jackson for a plain {@code kvp list}.
     */
    static Subcommand inCode(String name, Supplier<CommandSpec> model) {
      return new Subcommand(name, cli -> cli.addSubcommand(name, new CommandLine(model.get())));
    }
  }

  /** Every subcommand, in the order {@code --help} lists them. */
  private static final List<Subcommand> SUBCOMMANDS =
      List.of(
          Subcommand.inCode("list", () -> ListCommand.model()),
          Subcommand.inCode("tree", () -> TreeCommand.model()),
          Subcommand.annotated("blame", BlameCommand.class),
          Subcommand.annotated("diff", DiffCommand.class),
          Subcommand.inCode("timeline", () -> TimelineCommand.model()),
          Subcommand.annotated("export", ExportCommand.class),
          Subcommand.annotated("watch", WatchCommand.class),
          Subcommand.inCode("report", () -> ReportCommand.model()),
          Subcommand.annotated("status", StatusCommand.class),
          Subcommand.annotated("fleet", FleetCommand.class),
          Subcommand.annotated("bundle", BundleCommand.class),
          Subcommand.annotated("doctor", DoctorCommand.class),
          Subcommand.annotated("decode", DecodeCommand.class),
          Subcommand.inCode("dump", () -> DumpCommand.model()),
          Subcommand.inCode("get", () -> ItemCommands.Get.model()),
          Subcommand.inCode("set", () -> ItemCommands.Set.model()),
          Subcommand.inCode("delete", () -> ItemCommands.Delete.model()),
          Subcommand.inCode("append", () -> AppendCommand.model()),
          Subcommand.annotated("clear", ClearCommand.class));

  /** {@code kvp} with every subcommand. */
  public static CommandLine commandLine() {
    CommandLine cli = root();
    SUBCOMMANDS.forEach(s -> s.addTo().accept(cli));
    return handled(cli);
  }

  /** The root alone: its options, help and version. */
  private static CommandLine root() {
    KvpCommand kvp = new KvpCommand();
    kvp.spec =
        CommandModels.command(
            kvp,
            new String[] {"Read any Hyper-V KVP pool: kvprov's, azure-init's, cloud-init's."},
            "",
            "",
            "Examples:",
            "  kvp report                        did provisioning succeed, and if not, why",
            "  kvp tree                          every step of the boot, failed ones marked",
            "  kvp list --level WARN             what went wrong, from every writer",
            "  kvp timeline --html boot.html     a waterfall page to attach to a ticket",
            "  kvp diff good.kvp flaky.kvp       two boots side by side: what changed",
            "  kvp doctor --root /mnt/rescued    a rescued disk's pools and archives checked");
    kvp.spec.name("kvp").version("kvp 0.1.0");
    CommandModels.withStandardHelp(kvp.spec);
    return new CommandLine(kvp.spec);
  }

  /**
   * A usage error is one line and where to look, exit 2 (not the whole help after it); a defect is
   * one line in words, exit 3, never a stack trace or a Java class name.
   */
  private static CommandLine handled(CommandLine cli) {
    List<CommandLine> commands = new java.util.ArrayList<>(List.of(cli));
    commands.addAll(cli.getSubcommands().values());
    for (CommandLine command : commands) {
      // the exit statuses come from one place (ExitCode); the annotations keep the examples
      CommandLine.Model.UsageMessageSpec usage = command.getCommandSpec().usageMessage();
      List<String> footer = new java.util.ArrayList<>(List.of(""));
      footer.addAll(ExitCode.footer(command.getCommandName()));
      List<String> rest = List.of(usage.footer());
      footer.addAll(rest.isEmpty() ? rest : rest.subList(1, rest.size()));
      usage.footer(footer.toArray(String[]::new));
    }
    cli.setParameterExceptionHandler(
        (e, args) -> {
          CommandLine command = e.getCommandLine();
          String name = command.getCommandSpec().qualifiedName();
          String message = e.getMessage().replaceFirst("^Error: ", "");
          if (e instanceof CommandLine.UnmatchedArgumentException u
              && command.getCommandSpec().parent() == null
              && !u.getUnmatched().isEmpty()
              && !u.getUnmatched().get(0).startsWith("-")) {
            message =
                "'"
                    + u.getUnmatched().get(0)
                    + "' is not a kvp command; the commands are "
                    + String.join(", ", command.getSubcommands().keySet());
          }
          command.getErr().println(name + ": " + message);
          command.getErr().println("see " + name + " --help");
          return ExitCode.USAGE.code;
        });
    // `kvp nosuch --help` is the usage error `kvp nosuch` is, not help and exit 0: picocli lets a
    // help request pass over words it does not know
    cli.setExecutionStrategy(
        parsed -> {
          for (CommandLine.ParseResult p = parsed; p != null; p = p.subcommand()) {
            if (!p.unmatched().isEmpty()) {
              throw new CommandLine.UnmatchedArgumentException(
                  p.commandSpec().commandLine(), p.unmatched());
            }
          }
          return new CommandLine.RunLast().execute(parsed);
        });
    cli.setExecutionExceptionHandler(
        (e, command, parsed) -> {
          command
              .getErr()
              .println(
                  command.getCommandSpec().qualifiedName()
                      + ": stopped by a defect in kvp ("
                      + Defects.describe(e)
                      + "); please report it with the command line");
          return ExitCode.IO.code;
        });
    return cli;
  }

  /**
   * {@code kvp} for one run: when the first argument names a subcommand, only that one is built.
   * Building a command's model is most of a short run's start-up, and a support engineer runs
   * {@code kvp} many times in a row. When the run will lock a live pool, the locks' native binding
   * starts meanwhile on another core ({@link LockBinding}).
   */
  public static CommandLine commandLine(String[] args) {
    LockBinding.startFor(args);
    if (args.length > 0) {
      for (Subcommand command : SUBCOMMANDS) {
        if (command.name().equals(args[0])) {
          CommandLine cli = root();
          command.addTo().accept(cli);
          return handled(cli);
        }
      }
    }
    return commandLine();
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** The entry point of {@code bin/kvp}. */
  public static void main(String[] args) {
    Phases.mark("JVM start to main");
    CommandLine cli = commandLine(args);
    Phases.mark("command model (picocli)");
    // Items are UTF-8 text: print them as such whatever the locale, buffered (flushed at exit and
    // by commands that follow a pool), so large pools are not written a line per system call.
    PrintWriter out = StdoutWriter.open();
    cli.setOut(out);
    cli.setErr(new PrintWriter(new OutputStreamWriter(System.err, UTF_8), true));
    int status;
    try {
      status = cli.execute(args);
    } catch (OutOfMemoryError | StackOverflowError e) {
      // picocli passes Errors through: one line in words all the same, never a stack trace
      System.err.println("kvp: stopped by a defect in kvp (" + Defects.describe(e) + ")");
      status = ExitCode.IO.code;
    }
    Phases.mark("the rest of the command (a tree drawn, a report written)");
    out.flush();
    Phases.mark("output flushed");
    Phases.print(System.err);
    System.exit(status);
  }
}
