package dev.kvprov.agent;

import dev.kvprov.agent.config.AgentConfig;
import dev.kvprov.agent.config.ConfigException;
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
      "file and line it came from."
    },
    footer = {
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
      description = "Only validate: print warnings and errors; exit 1 on an error.")
  boolean check;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    AgentConfig loaded;
    try {
      loaded = options.load();
    } catch (ConfigException e) {
      err.println("kvprov config: error: " + e.getMessage());
      return 1;
    }
    loaded.warnings().forEach(w -> err.println("kvprov config: warning: " + w));
    if (check) {
      out.println(
          "configuration OK"
              + (loaded.warnings().isEmpty()
                  ? ""
                  : " (" + loaded.warnings().size() + " warning(s))"));
      return 0;
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
    return 0;
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
