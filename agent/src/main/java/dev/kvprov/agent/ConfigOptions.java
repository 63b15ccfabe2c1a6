package dev.kvprov.agent;

import dev.kvprov.agent.config.AgentConfig;
import dev.kvprov.agent.config.ConfigException;
import dev.kvprov.agent.config.ConfigLoader;
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
}
