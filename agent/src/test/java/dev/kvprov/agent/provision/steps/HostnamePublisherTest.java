package dev.kvprov.agent.provision.steps;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.agent.SpanRecorder;
import dev.kvprov.agent.os.CommandResult;
import dev.kvprov.agent.os.CommandRunner;
import dev.kvprov.agent.os.SystemRoot;
import dev.kvprov.otel.KvprovAttributes;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lease renewal that publishes the host name. The commands would renew this machine's own lease
 * (and ifdown would take its network away), so they are recorded at the seam, never run.
 */
class HostnamePublisherTest {
  @TempDir Path root;
  private final List<List<String>> commands = new ArrayList<>();
  private final List<List<String>> asked = new ArrayList<>();
  private final List<SpanData> spans = new ArrayList<>();

  private void routes(String table) throws Exception {
    Path file = Files.createDirectories(root.resolve("proc/net")).resolve("route");
    Files.writeString(
        file, "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\n" + table);
  }

  /** A machine with these tools installed, whose systemd runs these units. */
  private SpanData publish(Set<String> installed, Set<String> active, int renewExit)
      throws Exception {
    return publish(installed, active, renewExit, 0);
  }

  /** ... and {@code ifup} fails its first {@code ifupFailures} times. */
  private SpanData publish(
      Set<String> installed, Set<String> active, int renewExit, int ifupFailures) throws Exception {
    int[] ifups = {0};
    CommandRunner runner =
        new CommandRunner() {
          @Override
          public CommandResult run(List<String> argv, byte[] stdin, Duration timeout) {
            commands.add(argv);
            boolean ok =
                argv.get(0).equals("systemctl")
                    ? active.contains(argv.get(3))
                    : argv.get(0).equals("ifup") && ++ifups[0] <= ifupFailures
                        ? false
                        : renewExit == 0;
            // systemctl is-active says 3 for an inactive unit
            int exit = ok ? 0 : argv.get(0).equals("systemctl") ? 3 : Math.max(1, renewExit);
            return new CommandResult(exit, "", ok ? "" : "no carrier", Duration.ZERO);
          }

          @Override
          public CommandResult ask(List<String> argv, Duration timeout) {
            asked.add(argv);
            return run(argv, new byte[0], timeout);
          }

          @Override
          public boolean isInstalled(String command) {
            return installed.contains(command);
          }
        };
    spans.addAll(
        SpanRecorder.record(
            tracer -> {
              try {
                new HostnamePublisher(
                        new Machine(new SystemRoot(root), runner, tracer, Step.HOSTNAME), tracer)
                    .publish("web-01");
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            }));
    assertThat(spans).hasSize(1);
    assertThat(spans.get(0).getName()).isEqualTo("hostname.publish");
    return spans.get(0);
  }

  private static final String DEFAULT_VIA_ENS5 =
      "ens5\t00000000\t0102000A\t0003\t0\t0\t100\t00000000\n"
          + "ens5\t0002000A\t00000000\t0001\t0\t0\t100\t00FFFFFF\n";

  @Test
  void networkd_renewsTheDefaultRoutesLease() throws Exception {
    routes("lo\t0000007F\t00000000\t0001\t0\t0\t0\t000000FF\n" + DEFAULT_VIA_ENS5);

    SpanData span =
        publish(Set.of("networkctl", "nmcli", "systemctl"), Set.of("systemd-networkd"), 0);

    assertThat(commands.get(commands.size() - 1)).containsExactly("networkctl", "renew", "ens5");
    assertThat(span.getAttributes().get(KvprovAttributes.WARNING)).isNull();
  }

  @Test
  void whetherAManagerRuns_isAskedAsAQuestion_whoseNoIsNoFailure() throws Exception {
    routes(DEFAULT_VIA_ENS5);

    publish(Set.of("networkctl", "nmcli", "systemctl"), Set.of("NetworkManager"), 0);

    assertThat(asked)
        .containsExactly(
            List.of("systemctl", "is-active", "--quiet", "systemd-networkd"),
            List.of("systemctl", "is-active", "--quiet", "NetworkManager"));
  }

  @Test
  void networkManager_reappliesTheDevice() throws Exception {
    routes(DEFAULT_VIA_ENS5);

    publish(Set.of("networkctl", "nmcli", "systemctl"), Set.of("NetworkManager"), 0);

    assertThat(commands.get(commands.size() - 1))
        .containsExactly("nmcli", "device", "reapply", "ens5");
  }

  @Test
  void ifupdown_bouncesTheInterface() throws Exception {
    routes(DEFAULT_VIA_ENS5);

    publish(Set.of("ifdown", "ifup", "systemctl"), Set.of(), 0);

    assertThat(commands).endsWith(List.of("ifdown", "ens5"), List.of("ifup", "ens5"));
  }

  @Test
  void anIfupThatFailsOnce_isTriedAgain_theNetworkMustComeBack() throws Exception {
    routes(DEFAULT_VIA_ENS5);

    SpanData span = publish(Set.of("ifdown", "ifup"), Set.of(), 0, 1);

    assertThat(commands)
        .containsExactly(
            List.of("ifdown", "ens5"), List.of("ifup", "ens5"), List.of("ifup", "ens5"));
    assertThat(span.getAttributes().get(KvprovAttributes.WARNING)).isNull();
  }

  @Test
  void aFailedRenewal_orNoManager_orNoRoute_isAWarning_neverAnError() throws Exception {
    routes(DEFAULT_VIA_ENS5);
    SpanData failed = publish(Set.of("networkctl", "systemctl"), Set.of("systemd-networkd"), 1);
    assertThat(failed.getAttributes().get(KvprovAttributes.WARNING))
        .startsWith("networkctl failed: ");
    assertThat(failed.getStatus().getStatusCode())
        .isEqualTo(io.opentelemetry.api.trace.StatusCode.UNSET);

    spans.clear();
    SpanData none = publish(Set.of(), Set.of(), 0);
    assertThat(none.getAttributes().get(KvprovAttributes.WARNING))
        .isEqualTo("no network manager found (systemd-networkd, NetworkManager, ifupdown)");

    spans.clear();
    routes("ens5\t0002000A\t00000000\t0001\t0\t0\t100\t00FFFFFF\n");
    SpanData noRoute = publish(Set.of("networkctl"), Set.of(), 0);
    assertThat(noRoute.getAttributes().get(KvprovAttributes.WARNING))
        .isEqualTo("no default route: no lease to renew");
  }
}
