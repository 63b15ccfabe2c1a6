package dev.kvprov.agent.provision.steps;

import dev.kvprov.agent.os.CommandResult;
import dev.kvprov.agent.os.Names;
import io.opentelemetry.api.trace.Span;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The host name: through hostnamed where systemd runs, else {@code /etc/hostname} (and the kernel's
 * name, on the running system).
 */
final class HostnameStep implements Step.Action {
  private final Machine machine;
  private final String hostname;
  private final boolean publish;
  private final boolean hostnamectl;

  HostnameStep(Machine machine, Target target) {
    this.machine = machine;
    this.hostname = target.hostname();
    this.publish = target.publishHostname();
    this.hostnamectl = target.hostnamectl();
  }

  @Override
  public void run(Span span) throws ProvisioningException, IOException, InterruptedException {
    span.setAttribute("hostname", String.valueOf(hostname));
    Optional<String> problem = Names.hostProblem(hostname);
    if (problem.isPresent()) {
      throw machine.failure(problem.get());
    }
    // The name the running system has now: the lease is renewed only when it changes.
    String before = machine.root.isLive() ? kernelHostname() : "";
    if (hostnamectl && machine.root.runsSystemd() && machine.has("hostnamectl")) {
      CommandResult result = machine.tryRun(List.of("hostnamectl", "set-hostname", hostname));
      if (result.succeeded()) {
        published(before);
        return;
      }
      // hostnamed not usable (masked, or D-Bus not up yet): set it the plain way below.
      span.addEvent("hostnamectl failed (" + result.summary() + "); writing /etc/hostname instead");
    }
    Path file = machine.root.resolve("/etc/hostname");
    if (Files.exists(file) && Files.readString(file).strip().equals(hostname)) {
      span.setAttribute("changed", false);
    } else {
      machine.write(file, hostname + "\n", "rw-r--r--", -1, -1);
      span.setAttribute("changed", true);
    }
    if (machine.root.isLive()) {
      machine.run(List.of("hostname", hostname));
      published(before);
    }
  }

  private String kernelHostname() {
    try {
      return Files.readString(machine.root.resolve("/proc/sys/kernel/hostname")).strip();
    } catch (IOException e) {
      return ""; // unknown: taken as changed
    }
  }

  /**
   * On the running system, a new name goes to Azure's DNS too (unless configured off); the same
   * name again (a rerun) leaves the lease alone.
   */
  private void published(String before) throws InterruptedException {
    if (publish && machine.root.isLive() && !before.equals(hostname)) {
      new HostnamePublisher(machine, machine.tracer).publish(hostname);
    }
  }
}
