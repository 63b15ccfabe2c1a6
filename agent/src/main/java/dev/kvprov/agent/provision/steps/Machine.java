package dev.kvprov.agent.provision.steps;

import dev.kvprov.agent.os.AtomicFiles;
import dev.kvprov.agent.os.CommandResult;
import dev.kvprov.agent.os.CommandRunner;
import dev.kvprov.agent.os.SystemRoot;
import io.opentelemetry.api.trace.Tracer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The system one step acts on: its root, the commands it may run, and the one way it writes files.
 * A command that fails, and a write under {@code /usr}, fail the step with a plain reason.
 */
final class Machine {
  static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(2);

  final SystemRoot root;
  final CommandRunner runner;
  final Tracer tracer;
  private final Step step;

  Machine(SystemRoot root, CommandRunner runner, Tracer tracer, Step step) {
    this.root = root;
    this.runner = runner;
    this.tracer = tracer;
    this.step = step;
  }

  /** Whether {@code command} is installed here. */
  boolean has(String command) {
    return runner.isInstalled(command);
  }

  /** Runs {@code argv}; its failure, or its absence, fails the step. */
  void run(List<String> argv) throws ProvisioningException, InterruptedException {
    run(argv, new byte[0]);
  }

  /** Runs {@code argv} with {@code stdin} (where secrets go: never in the arguments). */
  void run(List<String> argv, byte[] stdin) throws ProvisioningException, InterruptedException {
    CommandResult result;
    try {
      result = runner.run(argv, stdin, COMMAND_TIMEOUT);
    } catch (IOException e) {
      throw new ProvisioningException(step, argv.get(0) + " could not run: " + e.getMessage(), e);
    }
    if (!result.succeeded()) {
      throw new ProvisioningException(step, argv.get(0) + " failed: " + result.summary());
    }
  }

  /**
   * Asks {@code argv} a yes-or-no question by its exit status ({@code systemctl is-active}): "no"
   * is an answer, not a failure, and shows as one.
   */
  boolean ask(List<String> argv) throws IOException, InterruptedException {
    return runner.ask(argv, COMMAND_TIMEOUT).succeeded();
  }

  /** Runs {@code argv} and says how it went, for commands whose failure the step handles. */
  CommandResult tryRun(List<String> argv) throws IOException, InterruptedException {
    return runner.run(argv, COMMAND_TIMEOUT);
  }

  /**
   * Writes {@code file} (a path already resolved inside the root) atomically. Nothing is ever
   * written under {@code /usr}: on an immutable image it is read-only, and on any image it belongs
   * to the packages.
   */
  void write(Path file, String content, String mode, int uid, int gid)
      throws ProvisioningException, IOException {
    refuseUsr(file);
    AtomicFiles.write(file, content, mode, uid, gid);
  }

  /**
   * Fails the step when writing {@code file} would write under the target's {@code /usr}: its
   * directory, links and all, is there. A link as the file itself does not count: a write replaces
   * the link with a file of its own (an {@code /etc} file linked to {@code /usr}'s default becomes
   * the administrator's copy).
   */
  void refuseUsr(Path file) throws ProvisioningException {
    Path usr = real(root.resolve("/usr"));
    Path absolute = file.toAbsolutePath().normalize();
    Path parent = absolute.getParent();
    Path real = parent == null ? absolute : real(parent).resolve(absolute.getFileName());
    if (real.startsWith(usr)) {
      Path shown = real.startsWith(root.path()) ? root.path().relativize(real) : real;
      throw new ProvisioningException(
          step,
          "refusing to write /"
              + shown.toString().replaceFirst("^/+", "")
              + ": nothing is written under /usr");
    }
  }

  /**
   * {@code path} with every link followed: its nearest existing ancestor's real path, then the
   * rest.
   */
  private static Path real(Path path) {
    Path existing = path;
    while (existing != null && !Files.exists(existing)) {
      existing = existing.getParent();
    }
    if (existing == null) {
      return path;
    }
    try {
      return existing.toRealPath().resolve(existing.relativize(path));
    } catch (IOException e) {
      return path; // unreadable: judged by its name
    }
  }

  ProvisioningException failure(String detail) {
    return new ProvisioningException(step, detail);
  }
}
