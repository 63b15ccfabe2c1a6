package dev.kvprov.agent;

import dev.kvprov.agent.config.AgentConfig;
import dev.kvprov.agent.config.ConfigException;
import dev.kvprov.agent.config.ConfigFinding;
import dev.kvprov.agent.config.Setting;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvprov config}: the effective configuration, each value with its origin. */
@Command(
    name = "config",
    mixinStandardHelpOptions = true,
    description = {
      "Print the effective configuration, each value with its origin.",
      "",
      "Print the effective configuration: defaults, /etc/kvprov/kvprov.toml, its",
      "drop-ins in /etc/kvprov/kvprov.toml.d/, then --config; each value with the",
      "file and line it came from. Without kvprov's own files, azure-init's are read:",
      "/etc/azure-init/azure-init.toml and its azure-init.toml.d/, then",
      "/etc/azure-init.toml and /etc/azure-init.d/ (the first line says so).",
      "",
      "Every file is read to its end: each error and warning of each file is",
      "printed on a line of its own (FILE:LINE:COLUMN: what is wrong), then how",
      "many there are. When /etc/kvprov holds no configuration file, the defaults",
      "apply (--check says so, and exits 0); a --config directory without *.toml",
      "files is an error."
    },
    footer = {
      "",
      "",
      "Examples:",
      "  kvprov config",
      "  kvprov config --check --root /mnt/image      validate an image's configuration"
    })
final class ConfigCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin ConfigOptions options;

  @Option(
      names = "--check",
      description = "Only validate: print every warning and error; exit 1 on an error.")
  boolean check;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    AgentConfig loaded;
    try {
      loaded = options.load();
    } catch (ConfigException e) {
      ConfigOptions.print("config", e.findings(), err::println);
      long errors = e.findings().stream().filter(ConfigFinding::isError).count();
      String counted =
          count(errors, "error")
              + (errors == e.findings().size()
                  ? ""
                  : ", " + count(e.findings().size() - errors, "warning"));
      err.println(
          e.files().isEmpty()
              ? counted + "; no configuration file read"
              : counted + " in " + count(e.files().size(), "file"));
      return ExitCode.FAILED.code;
    }
    ConfigOptions.print("config", loaded.warnings(), err::println);
    String azureInit =
        "no configuration files in "
            + options.root.resolve("etc/kvprov")
            + ": azure-init's were read instead";
    if (check) {
      out.println(
          loaded.files().isEmpty()
              ? "configuration OK: no configuration files found in "
                  + options.root.resolve("etc/kvprov")
                  + " (defaults apply)"
              : "configuration OK ("
                  + count(loaded.files().size(), "file")
                  + (loaded.readAzureInitFiles() ? "; " + azureInit : "")
                  + (loaded.warnings().isEmpty()
                      ? ""
                      : "; " + count(loaded.warnings().size(), "warning"))
                  + ")");
      return ExitCode.OK.code;
    }
    if (loaded.readAzureInitFiles()) {
      out.println("# " + azureInit);
    }
    List<Setting> settings = loaded.settings();
    int width =
        settings.stream()
            .mapToInt(s -> s.key().length() + render(s.value()).length() + 3)
            .max()
            .orElse(0);
    for (Setting s : settings) {
      String line = s.key() + " = " + render(s.value());
      out.println(line + " ".repeat(Math.max(1, width - line.length() + 1)) + "# " + s.origin());
    }
    return ExitCode.OK.code;
  }

  private static String count(long n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }

  private static String render(Object value) {
    if (value instanceof String s) {
      return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
    if (value instanceof List<?> list) {
      return list.stream().map(ConfigCommand::render).toList().toString();
    }
    return String.valueOf(value);
  }
}
