package dev.kvprov.agent;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.agent.demo.DemoRoot;
import dev.kvprov.agent.net.NetworkSnapshot;
import dev.kvprov.agent.sim.AzureSimulator;
import dev.kvprov.agent.sim.Scenario;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.otel.ProvisioningReport;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A failing first boot against the simulator leaves the network as it found it in the pool: the
 * span {@code network.snapshot} and the report's {@code network} field; a boot that succeeds leaves
 * neither.
 */
class NetworkSnapshotEndToEndTest {
  @TempDir Path dir;
  private Path root;
  private Path media;
  private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();

  @BeforeEach
  void setUp() throws Exception {
    root = TestVm.root(dir);
    media = TestVm.media(dir);
  }

  private int provision(AzureSimulator simulator) throws Exception {
    return TestVm.provision(root, TestVm.simulatorConfig(dir, simulator), media, stderr);
  }

  @Test
  void aVmWithoutNetwork_reportsItsLinkDown_inTheReportAndASpan() throws Exception {
    DemoRoot.network(root, false);
    try (AzureSimulator simulator =
        AzureSimulator.builder().scenario(Scenario.NETWORK_DOWN).start()) {
      // what a VM without network gets at once: no listener, not a listener that never answers
      for (java.net.URI endpoint :
          List.of(simulator.imdsEndpoint(), simulator.wireserverEndpoint())) {
        assertThat(NetworkSnapshot.probe(endpoint, Duration.ofSeconds(5))).isEqualTo("refused");
      }
      // The media stand in for IMDS; Ready cannot reach the wireserver: exit 20
      assertThat(provision(simulator)).as(stderr.toString(UTF_8)).isEqualTo(20);
      assertThat(simulator.reports()).isEmpty();
    }

    ProvisioningReport report = TestVm.report(root);
    assertThat(report.get("reason")).contains("Failed to report ready");
    String network = report.get("network").orElseThrow();
    assertThat(network)
        .startsWith("links eth0 down 00:0d:3a:5e:21:07; addresses none; route none;")
        .contains("; lease 168.63.129.16, ")
        .contains("; imds no answer (")
        .contains("; imds no answer (")
        .contains("refused")
        .contains("; wireserver failed (");

    List<String> snapshot = values(TestVm.pool(root), "|end|network.snapshot|");
    assertThat(snapshot).hasSize(1);
    assertThat(snapshot.get(0))
        .contains("Attr: net.links:string[]=eth0 down 00:0d:3a:5e:21:07,")
        .contains("Attr: net.addresses:string[]= |")
        .contains("Attr: net.default_route=none")
        .contains("Attr: net.default_route6=none")
        .contains("Attr: net.lease.server=168.63.129.16")
        .contains("Attr: net.lease.file=/var/lib/dhcp/dhclient.eth0.leases")
        .contains("Attr: net.imds=no answer (");
    assertThat(new String(Files.readAllBytes(pool()), UTF_8)).doesNotContain("never-log-me");
    assertThat(stderr.toString(UTF_8)).doesNotContain("never-log-me");
  }

  @Test
  void aFailureWithTheWireserverUntried_probesItsPort() throws Exception {
    DemoRoot.network(root, true);
    Files.delete(media.resolve("ovf-env.xml"));
    try (AzureSimulator simulator =
        AzureSimulator.builder().scenario(Scenario.IMDS_DOWN_NO_MEDIA).start()) {
      assertThat(provision(simulator)).as(stderr.toString(UTF_8)).isEqualTo(10);
    }

    String network = TestVm.report(root).get("network").orElseThrow();
    assertThat(network)
        .startsWith("links eth0 up 00:0d:3a:5e:21:07; addresses eth0 10.0.0.4/24")
        .contains("; route via 10.0.0.1 dev eth0, ::/0 via fe80::1234:5678:9abc dev eth0;")
        .contains("; imds no answer (")
        .endsWith("; wireserver connects");
  }

  @Test
  void aBootThatSucceeds_takesNoSnapshot() throws Exception {
    DemoRoot.network(root, true);
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      assertThat(provision(simulator)).as(stderr.toString(UTF_8)).isZero();
    }

    assertThat(TestVm.report(root).get("network")).isEmpty();
    assertThat(values(TestVm.pool(root), "network.snapshot")).isEmpty();
  }

  private Path pool() {
    return root.resolve("var/lib/hyperv/.kvp_pool_1");
  }

  private static List<String> values(List<KvpRecord> records, String keyPart) {
    return records.stream().filter(r -> r.key().contains(keyPart)).map(KvpRecord::value).toList();
  }
}
