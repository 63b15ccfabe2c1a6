package dev.kvprov.agent.config;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Reads the agent's TOML configuration: {@code etc/kvprov/kvprov.toml}, then {@code
 * etc/kvprov/kvprov.toml.d/*.toml} in lexical order (both under a root, {@code /} on a VM), then an
 * explicit {@code --config} file or directory. Later files win key by key. An unknown key is a
 * warning (a typo in a drop-in must not brick a first boot); a value of the wrong type or out of
 * range, or a missing {@code --config}, is an error naming the file, the key and what is accepted.
 */
public final class ConfigLoader {
  /** A configuration file is a few hundred bytes; anything near this is not one. */
  static final long MAX_FILE_BYTES = 1 << 20;

  private ConfigLoader() {}

  static Map<ConfigKey, Setting> defaults() {
    Map<ConfigKey, Setting> settings = new EnumMap<>(ConfigKey.class);
    for (ConfigKey key : ConfigKey.values()) {
      settings.put(key, new Setting(key.key, key.defaultValue, "default"));
    }
    return settings;
  }

  /**
   * Loads the configuration under {@code root}, then {@code explicit} if given.
   *
   * @throws ConfigException if a file cannot be read or parsed, a value is invalid, or {@code
   *     explicit} does not exist
   */
  public static AgentConfig load(Path root, Optional<Path> explicit) throws ConfigException {
    List<Path> files = new ArrayList<>();
    Path base = root.resolve("etc/kvprov/kvprov.toml");
    if (Files.isRegularFile(base)) {
      files.add(base);
    }
    files.addAll(tomlFilesIn(root.resolve("etc/kvprov/kvprov.toml.d")));
    if (explicit.isPresent()) {
      Path path = explicit.get();
      if (Files.isDirectory(path)) {
        files.addAll(tomlFilesIn(path));
      } else if (Files.isRegularFile(path)) {
        files.add(path);
      } else {
        throw new ConfigException("--config " + path + ": no such file or directory");
      }
    }
    Map<ConfigKey, Setting> settings = defaults();
    List<String> warnings = new ArrayList<>();
    TomlMapper toml = new TomlMapper();
    for (Path file : files) {
      apply(file, toml, settings, warnings);
    }
    return new AgentConfig(settings, warnings);
  }

  private static List<Path> tomlFilesIn(Path directory) throws ConfigException {
    if (!Files.isDirectory(directory)) {
      return List.of();
    }
    try (Stream<Path> entries = Files.list(directory)) {
      return entries
          .filter(p -> p.getFileName().toString().endsWith(".toml") && Files.isRegularFile(p))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new ConfigException(directory + ": cannot list: " + e.getMessage(), e);
    }
  }

  private static void apply(
      Path file, TomlMapper toml, Map<ConfigKey, Setting> settings, List<String> warnings)
      throws ConfigException {
    String text;
    try {
      if (Files.size(file) > MAX_FILE_BYTES) {
        throw new ConfigException(
            file + ": larger than " + MAX_FILE_BYTES + " bytes; not a configuration file");
      }
      text = Files.readString(file, UTF_8);
    } catch (IOException e) {
      throw new ConfigException(file + ": cannot read: " + e.getMessage(), e);
    }
    JsonNode tree;
    try {
      tree = toml.readTree(text);
    } catch (JacksonException e) {
      throw new ConfigException(file + ": not valid TOML: " + e.getOriginalMessage(), e);
    }
    TomlLines lines = new TomlLines(text.lines().toList());
    for (Iterator<Map.Entry<String, JsonNode>> sections = tree.fields(); sections.hasNext(); ) {
      Map.Entry<String, JsonNode> section = sections.next();
      String name = section.getKey();
      if (!section.getValue().isObject() || !ConfigKey.isSection(name)) {
        warnings.add(where(file, lines.line(name)) + "unknown key '" + name + "' (ignored)");
        continue;
      }
      for (Iterator<Map.Entry<String, JsonNode>> keys = section.getValue().fields();
          keys.hasNext(); ) {
        Map.Entry<String, JsonNode> entry = keys.next();
        String dotted = name + "." + entry.getKey();
        int line = lines.line(dotted);
        ConfigKey key = ConfigKey.byKey(dotted);
        if (key == null) {
          warnings.add(where(file, line) + "unknown key '" + dotted + "' (ignored)");
          continue;
        }
        Object value;
        try {
          value = key.type.check(entry.getValue());
        } catch (IllegalArgumentException e) {
          throw new ConfigException(
              where(file, line)
                  + dotted
                  + " = "
                  + entry.getValue()
                  + ": expected "
                  + key.type.name());
        }
        settings.put(key, new Setting(dotted, value, file + (line > 0 ? ":" + line : "")));
      }
    }
  }

  private static String where(Path file, int line) {
    return file + (line > 0 ? ":" + line : "") + ": ";
  }
}
