package dev.kvprov.agent.provision;

import dev.kvprov.agent.config.AgentConfig;
import dev.kvprov.kvp.IoErrors;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;

/**
 * How a Savable pre-provisioned VM learns it was handed to a customer, once the pool was told
 * Ready: the platform takes the pool's NIC away and saves the VM; resumed for a customer, it gets a
 * new NIC. Only on that NIC can IMDS hand over the customer's {@code ovf-env.xml}. Each wait is one
 * span and bounded: a VM whose NIC never goes (it was not saved) or whose new one never comes up
 * fails with the wait named, rather than waiting for ever. The bounds count monotonic time, which
 * stands still while the VM is saved.
 */
final class SavableHandover {
  private SavableHandover() {}

  /**
   * Waits for the pool's NIC to go, then for a new one to be up.
   *
   * @return the customer's NIC
   * @throws PreprovisioningException when a wait ran out, or the links could not be read
   */
  static LinkEvents.Link await(LinkEvents links, AgentConfig.Preprovisioning limits, Tracer tracer)
      throws PreprovisioningException, InterruptedException {
    wait(
        tracer,
        "pps.nic_detach",
        limits.nicDetachTimeout(),
        () -> links.detached(limits.nicDetachTimeout()),
        "the pool's NIC was not taken away within "
            + seconds(limits.nicDetachTimeout())
            + " of Ready (preprovisioning.nic_detach_timeout_secs): the platform did not save"
            + " this VM for a customer");
    return wait(
        tracer,
        "pps.nic_attach",
        limits.nicAttachTimeout(),
        () -> links.attached(limits.nicAttachTimeout()),
        "no new NIC was up within "
            + seconds(limits.nicAttachTimeout())
            + " of the pool's NIC going (preprovisioning.nic_attach_timeout_secs): the VM cannot"
            + " reach IMDS for its customer's data");
  }

  private interface Wait {
    Optional<LinkEvents.Link> run() throws IOException, InterruptedException;
  }

  private static LinkEvents.Link wait(
      Tracer tracer, String name, Duration within, Wait wait, String timedOut)
      throws PreprovisioningException, InterruptedException {
    Span span =
        tracer.spanBuilder(name).setAttribute("timeout_secs", within.toSeconds()).startSpan();
    try (Scope ignored = span.makeCurrent()) {
      Optional<LinkEvents.Link> link = wait.run();
      if (link.isEmpty()) {
        span.setStatus(StatusCode.ERROR, timedOut);
        throw new PreprovisioningException(timedOut);
      }
      span.setAttribute("nic", link.get().name());
      span.setAttribute("nic.index", link.get().index());
      return link.get();
    } catch (IOException e) {
      String failure = "the network links cannot be read: " + IoErrors.reason(e);
      span.setStatus(StatusCode.ERROR, failure);
      throw new PreprovisioningException(failure);
    } finally {
      span.end();
    }
  }

  private static String seconds(Duration d) {
    return d.toSeconds() + " s";
  }
}
