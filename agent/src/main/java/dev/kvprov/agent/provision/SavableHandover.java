package dev.kvprov.agent.provision;

import dev.kvprov.agent.config.AgentConfig;
import dev.kvprov.kvp.IoErrors;
import dev.kvprov.otel.KvprovAttributes;
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
 * span. As cloud-init does, a NIC that is not taken away within its bound is a warning and the VM
 * goes on to wait for a new one; that wait has no bound unless one is configured (the VM may stay
 * saved in the pool for as long as the platform likes).
 */
final class SavableHandover {
  /**
   * How often a wait says it is still waiting ({@code stillWaiting}): systemd's start timeout is
   * extended in these steps.
   */
  static final Duration SLICE = Duration.ofSeconds(60);

  private SavableHandover() {}

  /**
   * Waits for the pool's NIC to go (or its bound to pass), then for a new one to be up.
   *
   * @param stillWaiting called as each wait begins and then every {@link #SLICE}
   * @return the customer's NIC
   * @throws PreprovisioningException when a bounded attach wait ran out, or the links could not be
   *     read
   */
  static LinkEvents.Link await(
      LinkEvents links, AgentConfig.Preprovisioning limits, Tracer tracer, Runnable stillWaiting)
      throws PreprovisioningException, InterruptedException {
    // a detach that does not come is a warning on its span, and the VM goes on
    wait(tracer, "pps.nic_detach", limits.nicDetachTimeout(), links::detached, stillWaiting);
    Optional<LinkEvents.Link> attached =
        wait(tracer, "pps.nic_attach", limits.nicAttachTimeout(), links::attached, stillWaiting);
    return attached.orElseThrow(); // wait() throws when a bounded attach wait runs out
  }

  private interface Wait {
    Optional<LinkEvents.Link> within(Duration d) throws IOException, InterruptedException;
  }

  /**
   * One wait, as a span, in slices of at most {@link #SLICE}; {@code bound} zero means none (the
   * detach wait always has one).
   */
  private static Optional<LinkEvents.Link> wait(
      Tracer tracer, String name, Duration bound, Wait wait, Runnable stillWaiting)
      throws PreprovisioningException, InterruptedException {
    boolean detach = name.equals("pps.nic_detach");
    Span span =
        tracer.spanBuilder(name).setAttribute("timeout_secs", bound.toSeconds()).startSpan();
    try (Scope ignored = span.makeCurrent()) {
      boolean unbounded = bound.isZero() && !detach;
      // each slice is waited in full by the links (they return early only with a NIC), so the
      // slices add up to the bound
      Duration left = bound;
      Optional<LinkEvents.Link> link;
      do {
        stillWaiting.run();
        Duration slice = unbounded || left.compareTo(SLICE) > 0 ? SLICE : left;
        left = left.minus(slice);
        link = wait.within(slice);
      } while (link.isEmpty() && (unbounded || !(left.isZero() || left.isNegative())));
      if (link.isPresent()) {
        span.setAttribute("nic", link.get().name());
        span.setAttribute("nic.index", link.get().index());
      } else if (detach) {
        span.setAttribute(
            KvprovAttributes.WARNING,
            "the pool's NIC was not taken away within "
                + seconds(bound)
                + " of Ready (preprovisioning.nic_detach_timeout_secs): waiting for a new NIC all"
                + " the same");
      } else {
        String timedOut =
            "no new NIC was up within "
                + seconds(bound)
                + " (preprovisioning.nic_attach_timeout_secs): the VM cannot reach IMDS for its"
                + " customer's data";
        span.setStatus(StatusCode.ERROR, timedOut);
        throw new PreprovisioningException(timedOut);
      }
      return link;
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
