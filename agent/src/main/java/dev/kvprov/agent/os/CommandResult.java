package dev.kvprov.agent.os;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * How an external command ended.
 *
 * @param exitCode the exit status (-1 if it was killed on timeout)
 * @param stdout what it printed, at most 64 KiB
 * @param stderr what it complained, at most 64 KiB
 * @param elapsed how long it ran
 */
public record CommandResult(int exitCode, String stdout, String stderr, Duration elapsed) {
  public CommandResult {
    requireNonNull(stdout, "stdout");
    requireNonNull(stderr, "stderr");
    requireNonNull(elapsed, "elapsed");
  }

  public boolean succeeded() {
    return exitCode == 0;
  }

  /**
   * Whether a command asked a question ({@link CommandRunner#ask}) answered it with {@code
   * exitCode}: any status a program exits with itself, not the shell's "cannot run" (126, 127), a
   * signal's (128 + n) or a kill on timeout (-1).
   */
  public static boolean isAnswer(int exitCode) {
    return exitCode >= 0 && exitCode < 126;
  }

  /** A short description for errors and reports: {@code exit 32: mount: no medium found}. */
  public String summary() {
    String err = stderr.strip();
    String first = err.lines().findFirst().orElse("");
    return "exit "
        + exitCode
        + (first.isEmpty()
            ? ""
            : ": " + (first.length() > 200 ? first.substring(0, 200) + "…" : first));
  }
}
