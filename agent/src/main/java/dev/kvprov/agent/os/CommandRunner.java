package dev.kvprov.agent.os;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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

  /**
   * Runs a command whose exit status is an answer ({@code systemctl is-active UNIT}, {@code id -u
   * NAME}, {@code getent}): a non-zero status says "no", which is no failure of the run. The
   * telemetry of {@link ProcessCommandRunner} shows it as such.
   *
   * @throws IOException if the command cannot be started
   */
  default CommandResult ask(List<String> argv, Duration timeout)
      throws IOException, InterruptedException {
    return run(argv, new byte[0], timeout);
  }

  /**
   * Whether {@code command} can be run: found on {@code PATH}, or in the sbin directories a
   * service's {@code PATH} may lack.
   */
  default boolean isInstalled(String command) {
    for (String dir :
        System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin").split(":")) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, command))) {
        return true;
      }
    }
    return Files.isExecutable(Path.of("/usr/sbin", command))
        || Files.isExecutable(Path.of("/sbin", command));
  }
}
