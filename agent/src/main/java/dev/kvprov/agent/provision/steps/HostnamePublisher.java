package dev.kvprov.agent.provision.steps;

import dev.kvprov.agent.os.CommandResult;
import dev.kvprov.kvp.IoErrors;
import dev.kvprov.otel.KvprovAttributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Sends the new host name to Azure's DNS: the DHCP server learns a VM's name from its lease
 * requests, so the network manager that holds the lease is asked to renew it (what cloud-init's
 * "hostname bounce" does). Optional: whatever goes wrong is a warning on its span, never a failed
 * boot — the VM works without its name in DNS.
 */
final class HostnamePublisher {
  private final Machine machine;
  private final Tracer tracer;

  HostnamePublisher(Machine machine, Tracer tracer) {
    this.machine = machine;
    this.tracer = tracer;
  }

  /** On the running system: renew the lease of the default route's interface. */
  void publish(String hostname) throws InterruptedException {
    Span span =
        tracer.spanBuilder("hostname.publish").setAttribute("hostname", hostname).startSpan();
    try (Scope ignored = span.makeCurrent()) {
      Optional<String> device = defaultRouteInterface();
      if (device.isEmpty()) {
        warn(span, "no default route: no lease to renew");
        return;
      }
      span.setAttribute("interface", device.get());
      Optional<List<List<String>>> renew = renewal(device.get());
      if (renew.isEmpty()) {
        warn(span, "no network manager found (systemd-networkd, NetworkManager, ifupdown)");
        return;
      }
      span.setAttribute("manager", renew.get().get(0).get(0));
      for (List<String> argv : renew.get()) {
        CommandResult result = machine.tryRun(argv);
        if (!result.succeeded() && argv.get(0).equals("ifup")) {
          // The interface is down now, and the Ready report still has to go out: once more.
          result = machine.tryRun(argv);
        }
        if (!result.succeeded()) {
          warn(span, argv.get(0) + " failed: " + result.summary());
          return;
        }
      }
    } catch (IOException e) {
      warn(span, IoErrors.describe(e));
    } finally {
      span.end();
    }
  }

  /** The commands that renew {@code device}'s lease with the manager that runs it. */
  private Optional<List<List<String>>> renewal(String device)
      throws IOException, InterruptedException {
    if (machine.has("networkctl") && active("systemd-networkd")) {
      return Optional.of(List.of(List.of("networkctl", "renew", device)));
    }
    if (machine.has("nmcli") && active("NetworkManager")) {
      return Optional.of(List.of(List.of("nmcli", "device", "reapply", device)));
    }
    if (machine.has("ifdown") && machine.has("ifup")) {
      // ifupdown renews only by taking the interface down and up: a second without network.
      return Optional.of(List.of(List.of("ifdown", device), List.of("ifup", device)));
    }
    return Optional.empty();
  }

  private boolean active(String unit) throws IOException, InterruptedException {
    return machine.has("systemctl")
        && machine.ask(List.of("systemctl", "is-active", "--quiet", unit));
  }

  /** The interface of the default IPv4 route, from the kernel's routing table. */
  private Optional<String> defaultRouteInterface() throws IOException {
    Path routes = machine.root.resolve("/proc/net/route");
    if (!Files.isReadable(routes)) {
      return Optional.empty();
    }
    for (String line : Files.readAllLines(routes)) {
      String[] f = line.strip().split("\\s+");
      if (f.length > 2 && f[1].equals("00000000") && f[0].matches("[A-Za-z0-9._-]{1,15}")) {
        return Optional.of(f[0]);
      }
    }
    return Optional.empty();
  }

  private static void warn(Span span, String message) {
    span.setAttribute(KvprovAttributes.WARNING, message);
  }
}
