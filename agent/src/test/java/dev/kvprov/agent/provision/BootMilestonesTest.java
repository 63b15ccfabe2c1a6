package dev.kvprov.agent.provision;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.agent.SpanRecorder;
import dev.kvprov.agent.os.CommandResult;
import dev.kvprov.agent.os.CommandRunner;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** systemd's view of a boot, from {@code systemctl show} as it prints it on a booted VM. */
class BootMilestonesTest {
  /** What {@code systemctl show -p …} prints for the manager of an EFI VM. */
  private static final String MANAGER =
      """
      FirmwareTimestampMonotonic=3120456
      LoaderTimestampMonotonic=1045230
      InitRDTimestampMonotonic=2213004
      UserspaceTimestampMonotonic=4786112
      """;

  /** …and for the units, one block each, sshd's not started yet (kvprov runs before it). */
  private static final String UNITS =
      """
      Id=network-online.target
      ActiveEnterTimestampMonotonic=9834221

      Id=ssh.service
      ActiveEnterTimestampMonotonic=0

      Id=sshd.service
      ActiveEnterTimestampMonotonic=0
      """;

  @Test
  void theManagersAndTheUnitsTimestamps_areMilestonesSinceTheKernelStarted() {
    List<BootMilestones.Milestone> milestones = BootMilestones.parse(MANAGER, UNITS);

    assertThat(milestones)
        .containsExactly(
            new BootMilestones.Milestone("firmware", Duration.ofNanos(-3_120_456_000L)),
            new BootMilestones.Milestone("loader", Duration.ofNanos(-1_045_230_000L)),
            new BootMilestones.Milestone("kernel", Duration.ZERO),
            new BootMilestones.Milestone("initrd", Duration.ofNanos(2_213_004_000L)),
            new BootMilestones.Milestone("userspace", Duration.ofNanos(4_786_112_000L)),
            new BootMilestones.Milestone("network-online", Duration.ofNanos(9_834_221_000L)));
  }

  @Test
  void aVmWithoutFirmwareNumbers_andSshdUp_saysWhatItHas() {
    List<BootMilestones.Milestone> milestones =
        BootMilestones.parse(
            "FirmwareTimestampMonotonic=0\nLoaderTimestampMonotonic=0\n"
                + "InitRDTimestampMonotonic=0\nUserspaceTimestampMonotonic=1500000\n",
            "Id=ssh.service\nActiveEnterTimestampMonotonic=12000000\n");

    assertThat(milestones)
        .extracting(BootMilestones.Milestone::name)
        .containsExactly("kernel", "userspace", "sshd");
  }

  /**
   * systemctl held until the caller's next command has run: the caller's work goes on while systemd
   * is asked, and the answer still reaches the span, asked in its trace context.
   */
  @Test
  void systemdIsAskedBesideTheSteps_inTheRunsTraceContext_andItsAnswerReachesTheSpan() {
    CountDownLatch stepRan = new CountDownLatch(1);
    List<String> order = new CopyOnWriteArrayList<>();
    List<SpanContext> parents = new CopyOnWriteArrayList<>();
    List<Thread> threads = new CopyOnWriteArrayList<>();
    CommandRunner runner =
        (argv, stdin, timeout) -> {
          if (!argv.get(0).equals("systemctl")) {
            order.add(argv.get(0));
            stepRan.countDown();
            return new CommandResult(0, "", "", Duration.ZERO);
          }
          parents.add(Span.current().getSpanContext());
          threads.add(Thread.currentThread());
          if (!stepRan.await(30, TimeUnit.SECONDS)) {
            return new CommandResult(1, "", "held: the step never ran", Duration.ZERO);
          }
          order.add("systemctl answered");
          return new CommandResult(0, argv.contains("Id") ? UNITS : MANAGER, "", Duration.ZERO);
        };
    List<SpanContext> run = new ArrayList<>();

    List<SpanData> spans =
        SpanRecorder.record(
            tracer -> {
              Span span = tracer.spanBuilder("provision").startSpan();
              run.add(span.getSpanContext());
              try (Scope ignored = span.makeCurrent()) {
                BootMilestones.Pending pending = BootMilestones.start(true, runner);
                runner.run(List.of("useradd", "azureuser"), Duration.ofSeconds(5)); // a step
                pending.record(span);
              } catch (Exception e) {
                throw new AssertionError(e);
              } finally {
                span.end();
              }
            });

    assertThat(order).containsExactly("useradd", "systemctl answered", "systemctl answered");
    assertThat(threads).hasSize(2).noneMatch(t -> t == Thread.currentThread());
    assertThat(parents).containsOnly(run.get(0));
    assertThat(spans.get(0).getEvents())
        .extracting(EventData::getName)
        .containsExactly(
            "boot milestone: firmware",
            "boot milestone: loader",
            "boot milestone: kernel",
            "boot milestone: initrd",
            "boot milestone: userspace",
            "boot milestone: network-online",
            "boot milestone: kvprov");
  }

  @Test
  void aSystemctlThatFailsOrIsMissing_onlyLeavesSystemdsMilestonesOut() throws Exception {
    CommandRunner failing =
        (argv, stdin, timeout) -> new CommandResult(1, "", "Failed to connect", Duration.ZERO);
    CommandRunner missing =
        (argv, stdin, timeout) -> {
          throw new java.io.IOException("Cannot run program \"systemctl\"");
        };
    for (CommandRunner runner : List.of(failing, missing)) {
      BootMilestones.Pending pending = BootMilestones.start(true, runner);
      List<SpanData> spans =
          SpanRecorder.record(
              tracer -> {
                Span span = tracer.spanBuilder("provision").startSpan();
                try {
                  pending.record(span);
                } catch (InterruptedException e) {
                  throw new AssertionError(e);
                } finally {
                  span.end();
                }
              });
      assertThat(spans.get(0).getEvents())
          .extracting(EventData::getName)
          .containsExactly("boot milestone: kvprov");
    }
  }

  @Test
  void withoutSystemd_nothingIsAsked() throws Exception {
    List<List<String>> asked = new CopyOnWriteArrayList<>();
    CommandRunner runner =
        (argv, stdin, timeout) -> {
          asked.add(argv);
          return new CommandResult(0, MANAGER, "", Duration.ZERO);
        };

    List<SpanData> spans =
        SpanRecorder.record(
            tracer -> {
              Span span = tracer.spanBuilder("provision").startSpan();
              try {
                BootMilestones.start(false, runner).record(span);
              } catch (InterruptedException e) {
                throw new AssertionError(e);
              } finally {
                span.end();
              }
            });

    assertThat(asked).isEmpty();
    assertThat(spans.get(0).getEvents())
        .extracting(EventData::getName)
        .containsExactly("boot milestone: kvprov");
  }
}
