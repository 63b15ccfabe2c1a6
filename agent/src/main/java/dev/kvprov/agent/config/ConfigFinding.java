package dev.kvprov.agent.config;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.Locale;

/**
 * Something wrong, or doubtful, in the configuration, and where: an error keeps the agent from
 * running, a warning does not. Reads as {@code FILE:LINE:COLUMN: message}, the position left out
 * where it is not known, as compilers write it, so that editors and terminals can jump there.
 *
 * @param file the file, or the directory, the finding is about
 * @param line 1-based, or 0 when not known
 * @param column 1-based, or 0 when not known (always when the line is not)
 * @param severity whether the agent can run with it
 * @param message what is wrong in plain words, on one line
 */
public record ConfigFinding(Path file, int line, int column, Severity severity, String message) {
  /** Whether the agent can run with a finding. */
  public enum Severity {
    ERROR,
    WARNING;

    /** As a command line says it: {@code error}, {@code warning}. */
    @Override
    public String toString() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public ConfigFinding {
    requireNonNull(file, "file");
    requireNonNull(severity, "severity");
    requireNonNull(message, "message");
    if (line < 0 || column < 0 || (line == 0 && column != 0)) {
      throw new IllegalArgumentException("no such position: " + line + ":" + column);
    }
  }

  public boolean isError() {
    return severity == Severity.ERROR;
  }

  /** {@code FILE:LINE:COLUMN: message}, or with less of the position where it is not known. */
  @Override
  public String toString() {
    return render(true);
  }

  String render(boolean withColumn) {
    StringBuilder out = new StringBuilder().append(file);
    if (line > 0) {
      out.append(':').append(line);
      if (withColumn && column > 0) {
        out.append(':').append(column);
      }
    }
    return out.append(": ").append(message).toString();
  }
}
