package dev.kvprov.agent;

import dev.kvprov.agent.config.AgentConfig;
import dev.kvprov.agent.config.ConfigException;
import dev.kvprov.agent.config.ConfigFinding;
import dev.kvprov.agent.config.ConfigLoader;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import picocli.CommandLine.Option;

/** The options every command that reads the configuration shares. */
final class ConfigOptions {
  @Option(
      names = "--config",
      paramLabel = "FILE|DIR",
      description = "Read this file or directory of .toml files last.")
  Path config;

  @Option(
      names = "--root",
      paramLabel = "DIR",
      defaultValue = "/",
      description = "Act on the root filesystem at DIR (default: ${DEFAULT-VALUE}).")
  Path root;

  AgentConfig load() throws ConfigException {
    return ConfigLoader.load(root, Optional.ofNullable(config));
  }

  /**
   * The configuration for a command that must go on whatever it says (a report to the platform):
   * its errors and warnings said on {@code err}, and on an error what could be read of it.
   */
  AgentConfig loadOrFallback(String command, PrintWriter err) {
    try {
      AgentConfig config = load();
      print(command, config.warnings(), err::println);
      return config;
    } catch (ConfigException e) {
      print(command, e.findings(), err::println);
      err.println(
          "kvprov "
              + command
              + ": going on with the settings that could be read, and the"
              + " built-in ones for the rest");
      return e.readable();
    }
  }

  /** Each finding on a line of its own: {@code kvprov COMMAND: warning: FILE:LINE:COLUMN: ...}. */
  static void print(String command, List<ConfigFinding> findings, Consumer<String> err) {
    findings.forEach(f -> err.accept("kvprov " + command + ": " + f.severity() + ": " + f));
  }
}
