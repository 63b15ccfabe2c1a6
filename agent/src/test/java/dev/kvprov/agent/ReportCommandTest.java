package dev.kvprov.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.agent.demo.DemoRoot;
import dev.kvprov.agent.sim.AzureSimulator;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.otel.KvpRecordFormat;
import dev.kvprov.otel.KvprovRecord;
import dev.kvprov.otel.ProvisioningReport;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code kvprov report} against the simulator: what the platform hears, what KVP keeps. */
class ReportCommandTest {
  static final String VM = TestVm.ID;

  @TempDir Path dir;
  private Path root;
  private final StringWriter err = new StringWriter();

  @BeforeEach
  void setUp() throws Exception {
    root = TestVm.root(dir);
  }

  private int run(AzureSimulator simulator, String... args) throws Exception {
    Path config = dir.resolve("kvprov.toml");
    Files.writeString(
        config,
        simulator
            .configSnippet()
            .replace("[wireserver]\n", "[wireserver]\ntotal_retry_timeout_secs = 2\n"));
    CommandLine cli = KvprovCommand.commandLine();
    cli.setErr(new PrintWriter(err, true));
    List<String> argv = new java.util.ArrayList<>(List.of(args));
    argv.addAll(List.of("--root", root.toString(), "--config", config.toString()));
    return cli.execute(argv.toArray(String[]::new));
  }

  private List<KvpRecord> reports() throws Exception {
    return PoolFile.open(root.resolve("var/lib/hyperv"), 1).read().records().stream()
        .filter(r -> r.key().equals("PROVISIONING_REPORT"))
        .toList();
  }

  @Test
  void aFailureFromOutside_reachesTheWireserverAndKvp_andReadyAfterwardsReplacesIt()
      throws Exception {
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      int exit =
          run(
              simulator,
              "report",
              "failure",
              "--reason",
              "ignition: disk layout",
              "--step",
              "ignition",
              "--detail",
              "unit=ignition-disks.service");

      assertThat(exit).as(err.toString()).isZero();
      assertThat(reports()).hasSize(1);
      ProvisioningReport failed = ProvisioningReport.parse(reports().get(0).value());
      assertThat(failed.isSuccess()).isFalse();
      assertThat(failed.get("reason")).contains("ignition: disk layout");
      assertThat(failed.get("step")).contains("ignition");
      assertThat(failed.get("unit")).contains("ignition-disks.service");
      assertThat(failed.get("vm_id")).contains(VM);
      assertThat(simulator.reports()).hasSize(1);
      assertThat(simulator.reports().get(0).body())
          .contains("NotReady")
          .contains("ProvisioningFailed")
          .contains("ignition: disk layout");
      assertThat(root.resolve("var/lib/kvprov/" + VM + ".ready")).doesNotExist();

      assertThat(run(simulator, "report", "ready")).as(err.toString()).isZero();

      assertThat(reports()).hasSize(1);
      assertThat(ProvisioningReport.parse(reports().get(0).value()).isSuccess()).isTrue();
      assertThat(simulator.reports()).hasSize(2);
      assertThat(simulator.reports().get(1).body()).isEqualTo("{\"state\":\"Ready\"}");
      // A later `kvprov provision` finds the VM provisioned and reported.
      assertThat(root.resolve("var/lib/kvprov/" + VM + ".provisioned")).exists();
      assertThat(root.resolve("var/lib/kvprov/" + VM + ".ready")).exists();
      // Each report is traced like a run: a span "report" ends in the pool.
      assertThat(
              KvpRecordFormat.decode(
                      PoolFile.open(root.resolve("var/lib/hyperv"), 1).read().records())
                  .records()
                  .stream()
                  .map(KvpRecordFormat.DecodedRecord::record)
                  .filter(r -> r.kind() == KvprovRecord.Kind.END)
                  .map(r -> r.name().orElseThrow()))
          .containsExactly(
              "network.snapshot",
              "wireserver.attempt",
              "wireserver.report",
              "report",
              "wireserver.attempt",
              "wireserver.report",
              "report");
    }
  }

  @Test
  void withoutSmbios_theIdProvisionRemembered_namesTheMarkersAndTheReport() throws Exception {
    Files.delete(root.resolve("sys/class/dmi/id/product_uuid"));
    Path state = Files.createDirectories(root.resolve("var/lib/kvprov"));
    Files.writeString(state.resolve("vm-id"), VM + "\n"); // as provision left it
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      assertThat(run(simulator, "report", "ready")).as(err.toString()).isZero();

      assertThat(state.resolve(VM + ".ready")).exists();
      assertThat(state.resolve("unknown.ready")).doesNotExist();
      assertThat(ProvisioningReport.parse(reports().get(0).value()).get("vm_id")).contains(VM);
      assertThat(run(simulator, "report", "failure", "--reason", "a later unit failed"))
          .as("Ready before, under the remembered id")
          .isEqualTo(2);
    }
  }

  @Test
  void aFailureAfterReady_isRefused_unlessForced() throws Exception {
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      assertThat(run(simulator, "report", "ready")).as(err.toString()).isZero();

      assertThat(run(simulator, "report", "failure", "--reason", "a later unit failed"))
          .isEqualTo(2);
      assertThat(err.toString())
          .contains("kvprov report: this VM was provisioned and reported Ready already")
          .doesNotContain("kvprov kvprov");
      assertThat(simulator.reports()).hasSize(1);
      assertThat(ProvisioningReport.parse(reports().get(0).value()).isSuccess()).isTrue();

      assertThat(run(simulator, "report", "failure", "--reason", "a later unit failed", "--force"))
          .isZero();
      assertThat(simulator.reports()).hasSize(2);
    }
  }

  @Test
  void kvpOnly_writesTheRecord_andSendsNothing() throws Exception {
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      assertThat(
              run(simulator, "report", "failure", "--reason", "initrd: no network", "--kvp-only"))
          .as(err.toString())
          .isZero();

      assertThat(simulator.reports()).isEmpty();
      assertThat(ProvisioningReport.parse(reports().get(0).value()).get("reason"))
          .contains("initrd: no network");
    }
  }

  @Test
  void aWireserverThatRefuses_isExit20_andKvpStillHasTheFailure() throws Exception {
    try (AzureSimulator simulator =
        AzureSimulator.builder()
            .scenario(dev.kvprov.agent.sim.Scenario.WIRESERVER_FORBIDS)
            .start()) {
      assertThat(run(simulator, "report", "failure", "--reason", "ignition: disk layout"))
          .isEqualTo(20);

      assertThat(err.toString()).contains("the failure report did not reach the platform");
      assertThat(ProvisioningReport.parse(reports().get(0).value()).get("reason"))
          .contains("ignition: disk layout");
    }
  }

  @Test
  void aFailureFromOutside_carriesTheNetworkSnapshot_probingTheWireserver() throws Exception {
    DemoRoot.network(root, false);
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      assertThat(run(simulator, "report", "failure", "--reason", "initrd: no network"))
          .as(err.toString())
          .isZero();

      String network = ProvisioningReport.parse(reports().get(0).value()).get("network").get();
      assertThat(network)
          .startsWith("links eth0 down 00:0d:3a:5e:21:07; addresses none; route none;")
          .contains("; lease 168.63.129.16, 3 d old;")
          .endsWith("; imds not asked; wireserver connects");
      // the platform hears the same snapshot, in the failure's description
      assertThat(simulator.reports().get(0).body()).contains("links eth0 down");
      assertThat(snapshotSpans()).hasSize(1);
    }
  }

  @Test
  void kvpOnly_takesTheSnapshotWithoutTouchingTheWireserver() throws Exception {
    DemoRoot.network(root, true);
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      assertThat(
              run(simulator, "report", "failure", "--reason", "initrd: no network", "--kvp-only"))
          .as(err.toString())
          .isZero();

      assertThat(ProvisioningReport.parse(reports().get(0).value()).get("network").get())
          .startsWith("links eth0 up 00:0d:3a:5e:21:07; addresses eth0 10.0.0.4/24")
          .contains("; route via 10.0.0.1 dev eth0, ::/0 via fe80::1234:5678:9abc dev eth0;")
          .endsWith("; imds not asked; wireserver not asked (--kvp-only)");
      assertThat(simulator.reports()).isEmpty();
    }
  }

  @Test
  void readyNotAccepted_carriesTheSnapshot_withTheWireserversAnswer() throws Exception {
    DemoRoot.network(root, true);
    try (AzureSimulator simulator =
        AzureSimulator.builder()
            .scenario(dev.kvprov.agent.sim.Scenario.WIRESERVER_FORBIDS)
            .start()) {
      assertThat(run(simulator, "report", "ready")).isEqualTo(20);

      ProvisioningReport report = ProvisioningReport.parse(reports().get(0).value());
      assertThat(report.get("reason")).contains("Failed to report ready");
      assertThat(report.get("network").orElseThrow())
          .startsWith("links eth0 up ")
          .contains("; imds not asked; wireserver failed (");
    }
  }

  @Test
  void readyAccepted_takesNoSnapshot() throws Exception {
    DemoRoot.network(root, true);
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      assertThat(run(simulator, "report", "ready")).as(err.toString()).isZero();

      assertThat(ProvisioningReport.parse(reports().get(0).value()).get("network")).isEmpty();
      assertThat(snapshotSpans()).isEmpty();
    }
  }

  private List<String> snapshotSpans() throws Exception {
    return KvpRecordFormat.decode(PoolFile.open(root.resolve("var/lib/hyperv"), 1).read().records())
        .records()
        .stream()
        .map(KvpRecordFormat.DecodedRecord::record)
        .filter(r -> r.kind() == KvprovRecord.Kind.END)
        .map(r -> r.name().orElseThrow())
        .filter("network.snapshot"::equals)
        .toList();
  }

  @Test
  void aDetailThatWouldOverwriteTheReportsOwnFields_isAUsageError() throws Exception {
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      assertThat(run(simulator, "report", "failure", "--reason", "x", "--detail", "result=success"))
          .isEqualTo(2);
      assertThat(err.toString())
          .contains("--detail result=…: a key is a lower-case word")
          .doesNotContain("Exception");
      assertThat(run(simulator, "report", "failure", "--reason", "x", "--detail", "network=up"))
          .as("the snapshot's field")
          .isEqualTo(2);
      assertThat(run(simulator, "report", "failure", "--reason", " ")).isEqualTo(2);
      assertThat(simulator.reports()).isEmpty();
    }
  }
}
