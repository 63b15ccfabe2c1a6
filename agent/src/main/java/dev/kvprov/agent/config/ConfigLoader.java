package dev.kvprov.agent.config;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.databind.JsonNode;
import dev.kvprov.agent.config.ConfigFinding.Severity;
import dev.kvprov.agent.config.TomlLines.Position;
import dev.kvprov.kvp.IoErrors;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CoderResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Reads the agent's TOML configuration: {@code etc/kvprov/kvprov.toml}, then {@code
 * etc/kvprov/kvprov.toml.d/*.toml} in lexical order (both under a root, {@code /} on a VM) or, when
 * neither exists, azure-init's files instead; then an explicit {@code --config} file or directory.
 * Later files win key by key. An unknown key is a warning (a typo in a drop-in must not brick a
 * first boot); a value of the wrong type or out of range, a file that is not TOML or cannot be
 * read, or a {@code --config} that names no configuration file, is an error naming the file, the
 * line and what is accepted. Every file is read to its end, so that one run finds every mistake.
 */
public final class ConfigLoader {
  /** A configuration file is a few hundred bytes; anything near this is not one. */
  static final int MAX_FILE_BYTES = 1 << 20;

  /** The longest value a message repeats: enough to recognise it, not a whole file pasted in. */
  private static final int MAX_SHOWN_VALUE = 40;

  /** Thread-safe once built, and shared: what it learns about reading trees is kept. */
  /** A configuration of the usual shape, for {@link #warmUp}. */
  private static final String SAMPLE =
      """
      [imds]
      endpoint = "http://169.254.169.254"
      connection_timeout_secs = 2.0

      [telemetry]
      kvp_diagnostics = true
      """;

  private final Map<ConfigKey, Setting> settings = defaults();
  private final List<ConfigFinding> findings = new ArrayList<>();
  private boolean azureInitFiles;

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
   * @throws ConfigException if any file cannot be read or parsed, any value is invalid, or {@code
   *     explicit} names no configuration file; with every finding of every file
   */
  public static AgentConfig load(Path root, Optional<Path> explicit) throws ConfigException {
    ConfigLoader loader = new ConfigLoader();
    List<Path> files = loader.files(root, explicit);
    for (Path file : files) {
      int first = loader.findings.size();
      loader.read(file);
      loader
          .findings
          .subList(first, loader.findings.size())
          .sort(Comparator.comparingInt(ConfigFinding::line).thenComparing(ConfigFinding::column));
    }
    AzureInitKeys.check(loader.settings, loader.findings);
    AgentConfig config =
        new AgentConfig(loader.settings, loader.findings, files, loader.azureInitFiles);
    if (loader.findings.stream().anyMatch(ConfigFinding::isError)) {
      throw new ConfigException(loader.findings, files, config);
    }
    return config;
  }

  /**
   * Parses and checks a built-in configuration text, touching no file: loads and initialises what
   * {@link #load} needs (the TOML parser, the keys and their checks) ahead of it, on another thread
   * ({@code Warmup}). What it reads is thrown away.
   */
  public static void warmUp() {
    ConfigLoader loader = new ConfigLoader();
    loader.read(Path.of("(warm-up)"), SAMPLE);
    AzureInitKeys.check(loader.settings, loader.findings);
    new AgentConfig(loader.settings, loader.findings, List.of(), false);
  }

  /** Whether {@code file} sets a key: a line that is not blank, a comment or a table header. */
  private static boolean setsAnything(Path file) {
    try {
      return Files.readAllLines(file).stream()
          .map(String::strip)
          .anyMatch(l -> !l.isEmpty() && !l.startsWith("#") && !l.startsWith("["));
    } catch (IOException | java.io.UncheckedIOException e) {
      return true; // unreadable: read as kvprov's own, where the finding is said
    }
  }

  private List<Path> files(Path root, Optional<Path> explicit) {
    List<Path> files = new ArrayList<>();
    List<Path> own = baseAndDropIns(root, "etc/kvprov/kvprov.toml");
    // kvprov's package ships /etc/kvprov/kvprov.toml with every key commented out: files that set
    // nothing count as absent.
    if (own.stream().noneMatch(ConfigLoader::setsAnything)) {
      // An image moving from azure-init keeps its configuration: where azure-init's documentation
      // puts it, then where azure-init itself reads it (the later wins, as it did for azure-init).
      files.addAll(baseAndDropIns(root, "etc/azure-init/azure-init.toml"));
      files.addAll(baseAndDropIns(root, "etc/azure-init.toml"));
      azureInitFiles = !files.isEmpty();
    }
    files.addAll(own);
    if (explicit.isPresent()) {
      Path path = explicit.get();
      if (Files.isRegularFile(path)) {
        files.add(path);
      } else if (!Files.isDirectory(path)) {
        error(path, Position.UNKNOWN, "no such file or directory (given with --config)");
      } else {
        int before = findings.size();
        List<Path> given = tomlFilesIn(path);
        if (given.isEmpty() && findings.size() == before) {
          error(path, Position.UNKNOWN, "no configuration files found (no *.toml here)");
        }
        files.addAll(given);
      }
    }
    return files;
  }

  /**
   * {@code base} under the root if it exists, then its drop-ins: the {@code *.toml} in {@code
   * base.d}, or for {@code etc/azure-init.toml}, in {@code etc/azure-init.d} as azure-init reads.
   */
  private List<Path> baseAndDropIns(Path root, String base) {
    List<Path> files = new ArrayList<>();
    Path file = root.resolve(base);
    if (Files.isRegularFile(file)) {
      files.add(file);
    }
    Path dropIns =
        root.resolve(base.equals("etc/azure-init.toml") ? "etc/azure-init.d" : base + ".d");
    if (Files.isDirectory(dropIns)) {
      files.addAll(tomlFilesIn(dropIns));
    }
    return files;
  }

  private List<Path> tomlFilesIn(Path directory) {
    try (Stream<Path> entries = Files.list(directory)) {
      return entries
          .filter(p -> p.getFileName().toString().endsWith(".toml") && Files.isRegularFile(p))
          .sorted()
          .toList();
    } catch (IOException e) {
      error(directory, Position.UNKNOWN, "cannot list: " + IoErrors.reason(e));
    } catch (UncheckedIOException e) {
      error(directory, Position.UNKNOWN, "cannot list: " + IoErrors.reason(e.getCause()));
    }
    return List.of();
  }

  private void read(Path file) {
    byte[] bytes;
    try (InputStream in = Files.newInputStream(file)) {
      bytes = in.readNBytes(MAX_FILE_BYTES + 1);
    } catch (IOException e) {
      error(file, Position.UNKNOWN, "cannot read: " + IoErrors.reason(e));
      return;
    }
    if (bytes.length > MAX_FILE_BYTES) {
      error(
          file,
          Position.UNKNOWN,
          "larger than " + MAX_FILE_BYTES + " bytes; not a configuration file");
      return;
    }
    utf8(file, bytes).ifPresent(text -> read(file, text));
  }

  private void read(Path file, String text) {
    TomlLines lines = new TomlLines(text.lines().toList());
    JsonNode tree;
    try {
      tree = TomlTree.read(text);
    } catch (JacksonException e) {
      notToml(file, lines, e);
      return;
    }
    for (Iterator<Map.Entry<String, JsonNode>> sections = tree.fields(); sections.hasNext(); ) {
      Map.Entry<String, JsonNode> section = sections.next();
      String name = section.getKey();
      Position at = lines.position(name);
      if (!ConfigKey.isSection(name)) {
        warning(
            file,
            at,
            section.getValue().isObject()
                ? "unknown section [" + name + "] (ignored)" + KeySuggestions.forSection(name)
                : "unknown key '" + name + "' (ignored)" + KeySuggestions.forKey(name));
      } else if (!section.getValue().isObject()) {
        warning(file, at, "'" + name + "' is a section, not a key (ignored); see [" + name + "]");
      } else {
        readSection(file, lines, name, section.getValue());
      }
    }
  }

  private void readSection(Path file, TomlLines lines, String name, JsonNode section) {
    for (Iterator<Map.Entry<String, JsonNode>> keys = section.fields(); keys.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = keys.next();
      String dotted = name + "." + entry.getKey();
      Position at = lines.position(dotted);
      ConfigKey key = ConfigKey.byKey(dotted);
      if (key == null) {
        warning(file, at, "unknown key '" + dotted + "' (ignored)" + KeySuggestions.forKey(dotted));
        continue;
      }
      try {
        Object value = key.type.check(entry.getValue());
        settings.put(
            key, new Setting(dotted, value, file + (at.line() > 0 ? ":" + at.line() : "")));
      } catch (IllegalArgumentException e) {
        error(file, at, dotted + " = " + shown(entry.getValue()) + ": expected " + key.type.name());
      }
    }
  }

  /** The text, or nothing and an error where the first byte that is not UTF-8 is. */
  private Optional<String> utf8(Path file, byte[] bytes) {
    ByteBuffer in = ByteBuffer.wrap(bytes);
    // UTF-8 never decodes to more chars than it has bytes.
    CharBuffer out = CharBuffer.allocate(bytes.length);
    CoderResult result = UTF_8.newDecoder().decode(in, out, true);
    if (!result.isError()) {
      return Optional.of(out.flip().toString());
    }
    int line = 1;
    int lineStart = 0;
    for (int i = 0; i < in.position(); i++) {
      if (bytes[i] == '\n') {
        line++;
        lineStart = i + 1;
      }
    }
    error(
        file,
        new Position(line, in.position() - lineStart + 1),
        "not UTF-8 text, which TOML must be");
    return Optional.empty();
  }

  private void notToml(Path file, TomlLines lines, JacksonException e) {
    String what = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
    Optional<TomlLines.Repeat> repeat = lines.firstRepeat();
    if (what.equals("Duplicate key") && repeat.isPresent()) {
      // The parser notices a key set twice only where the next statement begins, a line or more
      // further on, and does not name the key: say which, and where.
      error(
          file,
          repeat.get().again(),
          "not valid TOML: "
              + repeat.get().key()
              + " is set twice (first on line "
              + repeat.get().first().line()
              + ")");
      return;
    }
    // Jackson's limits name the Java method that sets them: ", from `StreamReadConstraints...`".
    what = what.replaceAll(", from `[^`]*`", "").replaceAll("\\s+", " ").strip();
    if (what.isEmpty()) {
      what = "cannot be parsed";
    }
    JsonLocation location = e.getLocation();
    Position at =
        location == null || location.getLineNr() < 1
            ? Position.UNKNOWN
            : new Position(location.getLineNr(), Math.max(0, location.getColumnNr()));
    error(
        file,
        at,
        "not valid TOML: " + what.substring(0, 1).toLowerCase(Locale.ROOT) + what.substring(1));
  }

  /** A rejected value as written, cut short, and without a password a URL may carry. */
  private static String shown(JsonNode value) {
    String text = value.toString().replaceAll("//[^/@\\s]*@", "//...@");
    return text.length() <= MAX_SHOWN_VALUE ? text : text.substring(0, MAX_SHOWN_VALUE) + "...";
  }

  private void error(Path file, Position at, String message) {
    findings.add(new ConfigFinding(file, at.line(), at.column(), Severity.ERROR, message));
  }

  private void warning(Path file, Position at, String message) {
    findings.add(new ConfigFinding(file, at.line(), at.column(), Severity.WARNING, message));
  }
}
