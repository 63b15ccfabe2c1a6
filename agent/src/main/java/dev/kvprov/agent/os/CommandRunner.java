package dev.kvprov.agent.os;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * The one seam through which the agent runs external commands ({@code mount}, {@code useradd}, …).
 * Tests replace it only where the real command would change the machine running them. Secrets go
 * through {@code stdin}, never through the arguments, which any local user can read in {@code
 * /proc}.
 */
public interface CommandRunner {
  /**
   * Runs {@code argv} to completion or until {@code timeout}, feeding it {@code stdin}.
   *
   * @throws IOException if the command cannot be started
   */
  CommandResult run(List<String> argv, byte[] stdin, Duration timeout)
      throws IOException, InterruptedException;

  default CommandResult run(List<String> argv, Duration timeout)
      throws IOException, InterruptedException {
    return run(argv, new byte[0], timeout);
  }
}
