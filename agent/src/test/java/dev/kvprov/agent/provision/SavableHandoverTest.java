package dev.kvprov.agent.provision;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.agent.SpanRecorder;
import dev.kvprov.agent.config.AgentConfig;
import dev.kvprov.otel.KvprovAttributes;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The Savable hand-over's waits, the links scripted at their seam. */
class SavableHandoverTest {
  private static final AgentConfig.Preprovisioning LIMITS =
      new AgentConfig.Preprovisioning(Duration.ofSeconds(5), Duration.ofSeconds(7));
  private static final LinkEvents.Link POOL = new LinkEvents.Link("eth0", 2);
  private static final LinkEvents.Link CUSTOMER = new LinkEvents.Link("eth0", 3);

  /**
   * Links that answer as scripted, and remember what they were asked; the attach wait's answers in
   * turn (the last one repeated).
   */
  private static final class Scripted implements LinkEvents {
    final List<String> asked = new ArrayList<>();
    final Optional<Link> detach;
    final java.util.Deque<Optional<Link>> attach = new java.util.ArrayDeque<>();
    final IOException failure;

    Scripted(Optional<Link> detach, Optional<Link> attach, IOException failure) {
      this.detach = detach;
      this.attach.add(attach);
      this.failure = failure;
    }

    @Override
    public Optional<Link> detached(Duration within) throws IOException {
      asked.add("detached " + within.toSeconds());
      if (failure != null) {
        throw failure;
      }
      return detach;
    }

    @Override
    public Optional<Link> attached(Duration within) {
      asked.add("attached " + within.toSeconds());
      return attach.size() > 1 ? attach.poll() : attach.peek();
    }
  }

  private record Outcome(List<SpanData> spans, Object result) {}

  private static Outcome run(LinkEvents links) {
    return run(links, LIMITS, () -> {});
  }

  private static Outcome run(
      LinkEvents links, AgentConfig.Preprovisioning limits, Runnable stillWaiting) {
    Object[] result = new Object[1];
    List<SpanData> spans =
        SpanRecorder.record(
            tracer -> {
              try {
                result[0] = SavableHandover.await(links, limits, tracer, stillWaiting);
              } catch (PreprovisioningException e) {
                result[0] = e;
              } catch (InterruptedException e) {
                throw new AssertionError(e);
              }
            });
    return new Outcome(spans, result[0]);
  }

  @Test
  void theNicGoes_thenANewOneIsUp_theCustomersNicIsReturned_eachWaitASpan() {
    Scripted links = new Scripted(Optional.of(POOL), Optional.of(CUSTOMER), null);

    Outcome outcome = run(links);

    assertThat(outcome.result()).isEqualTo(CUSTOMER);
    assertThat(links.asked).containsExactly("detached 5", "attached 7");
    assertThat(outcome.spans())
        .extracting(SpanData::getName)
        .containsExactly("pps.nic_detach", "pps.nic_attach");
    assertThat(outcome.spans().get(0).getAttributes().get(AttributeKey.longKey("nic.index")))
        .isEqualTo(2L);
    assertThat(outcome.spans().get(1).getAttributes().get(AttributeKey.longKey("nic.index")))
        .isEqualTo(3L);
    assertThat(outcome.spans().get(1).getAttributes().get(AttributeKey.stringKey("nic")))
        .isEqualTo("eth0");
  }

  @Test
  void theNicNeverGoes_warnsNamingItsSetting_andGoesOnToWaitForANewOne() {
    Scripted links = new Scripted(Optional.empty(), Optional.of(CUSTOMER), null);

    Outcome outcome = run(links);

    assertThat(outcome.result()).isEqualTo(CUSTOMER);
    assertThat(links.asked).containsExactly("detached 5", "attached 7");
    assertThat(outcome.spans())
        .extracting(s -> s.getStatus().getStatusCode())
        .containsExactly(StatusCode.UNSET, StatusCode.UNSET);
    assertThat(outcome.spans().get(0).getAttributes().get(KvprovAttributes.WARNING))
        .contains("not taken away within 5 s of Ready")
        .contains("preprovisioning.nic_detach_timeout_secs")
        .contains("waiting for a new NIC all the same");
  }

  @Test
  void anAttachWaitWithoutBound_waitsSliceAfterSlice_sayingItStillWaitsEachTime() {
    Scripted links = new Scripted(Optional.of(POOL), Optional.empty(), null);
    links.attach.clear();
    for (int i = 0; i < 4; i++) {
      links.attach.add(Optional.empty()); // four minutes without a new NIC
    }
    links.attach.add(Optional.of(CUSTOMER));
    java.util.concurrent.atomic.AtomicInteger told =
        new java.util.concurrent.atomic.AtomicInteger();

    Outcome outcome =
        run(
            links,
            new AgentConfig.Preprovisioning(Duration.ofSeconds(5), Duration.ZERO),
            told::incrementAndGet);

    assertThat(outcome.result()).isEqualTo(CUSTOMER);
    assertThat(links.asked)
        .containsExactly(
            "detached 5",
            "attached 60",
            "attached 60",
            "attached 60",
            "attached 60",
            "attached 60");
    assertThat(told).as("once per slice of each wait").hasValue(6);
  }

  @Test
  void noNewNicComesUp_failsNamingTheWaitAndItsSetting() {
    Scripted links = new Scripted(Optional.of(POOL), Optional.empty(), null);

    Outcome outcome = run(links);

    assertThat(outcome.result())
        .isInstanceOfSatisfying(
            PreprovisioningException.class,
            e ->
                assertThat(e.getMessage())
                    .contains("no new NIC was up within 7 s")
                    .contains("preprovisioning.nic_attach_timeout_secs"));
    assertThat(outcome.spans())
        .extracting(s -> s.getStatus().getStatusCode())
        .containsExactly(StatusCode.UNSET, StatusCode.ERROR);
  }

  @Test
  void linksThatCannotBeRead_failInPlainWords() {
    Scripted links =
        new Scripted(Optional.empty(), Optional.empty(), new AccessDeniedException("/sys/x"));

    Outcome outcome = run(links);

    assertThat(outcome.result())
        .isInstanceOfSatisfying(
            PreprovisioningException.class,
            e ->
                assertThat(e.getMessage())
                    .isEqualTo("the network links cannot be read: permission denied"));
  }
}
