package dev.kvprov.agent.config;

import java.nio.file.Path;
import java.util.List;

/**
 * A configuration the agent must not run with. Carries every finding of the files read, so that an
 * image builder sees all mistakes at once; its message is the first error alone, on one line,
 * naming file and line, fit to be given as the reason a boot failed.
 */
public final class ConfigException extends Exception {
  private static final long serialVersionUID = 1L;

  private final List<ConfigFinding> findings;
  private final List<Path> files;
  private final transient AgentConfig readable;

  /**
   * At least one of {@code findings} is an error.
   *
   * @param readable every value that was read without an error, the defaults for the rest
   */
  ConfigException(List<ConfigFinding> findings, List<Path> files, AgentConfig readable) {
    super(message(findings));
    this.findings = List.copyOf(findings);
    this.files = List.copyOf(files);
    this.readable = readable;
  }

  private static String message(List<ConfigFinding> findings) {
    List<ConfigFinding> errors = findings.stream().filter(ConfigFinding::isError).toList();
    if (errors.isEmpty()) {
      throw new IllegalArgumentException("a configuration with no error: " + findings);
    }
    // A column means little to whoever reads a failed boot's reason; the line is what they look up.
    String first = errors.get(0).render(false);
    int more = errors.size() - 1;
    return more == 0 ? first : first + " (and " + more + " more error" + (more == 1 ? ")" : "s)");
  }

  /** Every error and warning, file by file in the order they were read, each file's by line. */
  public List<ConfigFinding> findings() {
    return findings;
  }

  /**
   * What could be read: each value that had no error, the built-in default for the rest. Not to run
   * with — only to tell the platform, through the endpoints the files did give, that the VM failed
   * on its configuration.
   */
  public AgentConfig readable() {
    return readable;
  }

  /** The configuration files that were found, in the order they were read. */
  public List<Path> files() {
    return files;
  }
}
