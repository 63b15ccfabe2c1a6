package dev.kvprov.inspect.cli;

import dev.kvprov.inspect.spans.BootSection;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/** {@code --boot}: which boots a command shows. */
final class BootChoice {
  @CommandLine.Spec(CommandLine.Spec.Target.MIXEE)
  CommandLine.Model.CommandSpec mixee;

  private String boot = "all";

  @Option(
      names = "--boot",
      paramLabel = "N",
      description =
          "Which boot, with --root: N (1 is the oldest archive), latest, or all (default).")
  void boot(String boot) {
    String b = boot.toLowerCase(Locale.ROOT);
    if (!b.equals("all") && !b.equals("latest") && !b.matches("[1-9][0-9]{0,4}")) {
      throw new CommandLine.ParameterException(
          mixee.commandLine(), "--boot is a number from 1, latest or all; not " + boot);
    }
    this.boot = b;
  }

  /** The sections chosen; a number past the last is said as a usage error. */
  List<BootSection> of(List<BootSection> sections) {
    if (boot.equals("all") || sections.isEmpty()) {
      return sections;
    }
    if (boot.equals("latest")) {
      return List.of(sections.get(sections.size() - 1));
    }
    int n = Integer.parseInt(boot);
    if (n > sections.size()) {
      throw new CommandLine.ParameterException(
          mixee.commandLine(),
          "--boot "
              + n
              + ": there "
              + (sections.size() == 1 ? "is 1 boot" : "are " + sections.size() + " boots"));
    }
    return List.of(sections.get(n - 1));
  }
}
