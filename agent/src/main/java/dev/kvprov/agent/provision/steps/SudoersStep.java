package dev.kvprov.agent.provision.steps;

import dev.kvprov.agent.os.Passwd;
import io.opentelemetry.api.trace.Span;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The admin user's sudo rule, in its own drop-in, checked by {@code visudo} before it takes effect:
 * without a password it needs none.
 */
final class SudoersStep implements Step.Action {
  private final Machine machine;
  private final String user;
  private final boolean hasPassword;

  SudoersStep(Machine machine, Target target) {
    this.machine = machine;
    this.user = target.user();
    this.hasPassword = target.password().isPresent();
  }

  @Override
  public void run(Span span) throws ProvisioningException, IOException, InterruptedException {
    if (Passwd.lookup(machine.root, user).isEmpty()) {
      // A rule for nobody (the user step not run, or failed) would wait for whoever takes the name.
      throw machine.failure("no passwd entry for " + user + ": the user step makes it");
    }
    String rule = user + " ALL=(ALL) " + (hasPassword ? "ALL" : "NOPASSWD: ALL") + "\n";
    // sudo skips drop-ins whose names contain a dot: spell it out, one-to-one ("a.b" and "a_b"
    // must not share a file).
    Path file =
        machine.root.resolve(
            "/etc/sudoers.d/90-kvprov-" + user.replace("_", "_u").replace(".", "_d"));
    span.setAttribute("file", file.toString());
    if (Files.exists(file) && Files.readString(file).equals(rule)) {
      span.setAttribute("changed", false);
      return;
    }
    Path check = machine.root.resolve("/etc/sudoers.d/.kvprov-check");
    machine.write(check, rule, "r--r-----", -1, -1);
    try {
      if (machine.has("visudo")) {
        machine.run(List.of("visudo", "-c", "-q", "-f", check.toString()));
      }
    } finally {
      Files.deleteIfExists(check);
    }
    machine.write(file, rule, "r--r-----", -1, -1);
    span.setAttribute("changed", true);
  }
}
