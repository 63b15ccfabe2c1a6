package dev.kvprov.agent.provision;

import dev.kvprov.agent.os.CommandResult;
import dev.kvprov.agent.os.CommandRunner;
import dev.kvprov.agent.os.SystemRoot;
import dev.kvprov.kvp.IoErrors;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The Guest Proxy Agent's status, asked the way cloud-init's Azure datasource asks it when the
 * media say {@code ProvisionGuestProxyAgent}: {@code azure-proxy-agent --status --wait 120}, which
 * exits 0 once the proxy is set up between the VM and IMDS/the wireserver. It is asked when the
 * media are read, before IMDS (cloud-init's {@code crawl_metadata} asks it once networking is up
 * and before it queries IMDS: the proxy sits between the VM and both endpoints). One span, {@code
 * provision.gpa}, says how it went.
 */
final class GuestProxyAgent {
  static final String PROGRAM = "azure-proxy-agent";

  /** cloud-init's wait, which the proxy agent itself bounds ({@code --wait 120}). */
  static final Duration WAIT = Duration.ofSeconds(120);

  /** Where the program is looked for in the root: a boot service's PATH. */
  private static final List<String> DIRECTORIES = List.of("/usr/sbin", "/usr/bin", "/sbin", "/bin");

  /**
   * How the check ended.
   *
   * @param word what the report says after {@code gpa=}: {@code ready}, {@code failed}, {@code
   *     missing} or {@code timeout}
   * @param detail one plain line: what the proxy agent answered, or why there was no answer
   */
  record Status(String word, String detail) {
    boolean ready() {
      return word.equals("ready");
    }

    /**
     * The failure report's reason, split as cloud-init's reportable errors split it: the program
     * not found ({@code ReportableErrorProxyAgentNotFound}), or its status failing however it
     * failed ({@code ReportableErrorProxyAgentStatusFailure}: a non-zero exit, which is also how
     * the proxy agent says its own {@code --wait} ran out).
     */
    String reason() {
      return word.equals("missing")
          ? "Guest Proxy Agent not found"
          : "Guest Proxy Agent status failed";
    }
  }

  private GuestProxyAgent() {}

  /**
   * Asks the proxy agent installed in {@code root} for its status, waiting at most {@code wait}
   * (and killing it a little later if it does not keep to it).
   */
  static Status check(SystemRoot root, CommandRunner runner, Tracer tracer, Duration wait)
      throws InterruptedException {
    Span span = tracer.spanBuilder("provision.gpa").startSpan();
    try (Scope ignored = span.makeCurrent()) {
      Status status = ask(root, runner, wait);
      span.setAttribute("gpa", status.word());
      span.setAttribute("detail", status.detail());
      if (!status.ready()) {
        span.setStatus(StatusCode.ERROR, status.detail());
      }
      return status;
    } finally {
      span.end();
    }
  }

  private static Status ask(SystemRoot root, CommandRunner runner, Duration wait)
      throws InterruptedException {
    Path program = null;
    for (String dir : DIRECTORIES) {
      Path candidate = root.resolve(dir + "/" + PROGRAM);
      if (Files.isExecutable(candidate)) {
        program = candidate;
        break;
      }
    }
    if (program == null) {
      return new Status(
          "missing",
          PROGRAM + " is not installed (looked in " + String.join(", ", DIRECTORIES) + ")");
    }
    CommandResult result;
    try {
      result =
          runner.run(
              List.of(program.toString(), "--status", "--wait", String.valueOf(wait.toSeconds())),
              wait.plusSeconds(10));
    } catch (IOException e) {
      return new Status("failed", PROGRAM + " could not be run: " + IoErrors.reason(e));
    }
    if (result.succeeded()) {
      return new Status("ready", PROGRAM + " --status exited 0");
    }
    if (result.exitCode() == -1) {
      return new Status(
          "timeout", PROGRAM + " --status gave no answer within " + wait.toSeconds() + " s");
    }
    String said = firstLine(result.stderr());
    if (said.isEmpty()) {
      said = firstLine(result.stdout());
    }
    return new Status(
        "failed",
        PROGRAM + " --status exited " + result.exitCode() + (said.isEmpty() ? "" : ": " + said));
  }

  private static String firstLine(String text) {
    String first = text.strip().lines().findFirst().orElse("").strip();
    return first.length() > 200 ? first.substring(0, 200) + "…" : first;
  }
}
