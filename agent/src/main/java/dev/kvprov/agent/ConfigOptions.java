package dev.kvprov.agent;

import dev.kvprov.agent.config.AgentConfig;
import dev.kvprov.agent.config.ConfigException;
import dev.kvprov.agent.config.ConfigLoader;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;
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
   * its errors and warnings said on {@code err}, and on an error the built-in settings.
   */
  AgentConfig loadOrFallback(String command, PrintWriter err) {
    try {
      AgentConfig config = load();
      config.warnings().forEach(w -> err.println(command + ": warning: " + w));
      return config;
    } catch (ConfigException e) {
      err.println(command + ": " + e.getMessage() + "; going on with the built-in settings");
      return AgentConfig.defaults();
    }
  }
}
