package dev.kvprov.agent;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.agent.sim.AzureSimulator;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.otel.KvpRecordFormat;
import dev.kvprov.otel.KvprovRecord;
import dev.kvprov.otel.ProvisioningReport;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A root without SMBIOS (a container, systemd-nspawn, an image with an empty {@code sys/}) against
 * the simulator: the VM id is IMDS's, the markers are named by it, and the next boot is done
 * without asking anyone.
 */
class ProvisionWithoutSmbiosTest {
  static final String VM = TestVm.ID; // the simulator's compute.vmId
  static final String OTHER_VM = "0f0e0d0c-2222-4333-8444-555566667777";

  @TempDir Path dir;
  private Path root;
  private Path media;
  private Path state;
  private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();

  @BeforeEach
  void setUp() throws Exception {
    root = TestVm.root(dir);
    Files.delete(root.resolve("sys/class/dmi/id/product_uuid")); // sys/ is there, empty
    media = TestVm.media(dir);
    state = root.resolve("var/lib/kvprov");
  }

  private int provision(AzureSimulator simulator) throws Exception {
    Path config = TestVm.simulatorConfig(dir, simulator);
    ConfigOptions options = new ConfigOptions();
    options.root = root;
    options.config = config;
    return ProvisionCommand.run(options, media, new PrintStream(stderr, true, UTF_8));
  }

  /** The simulator's sample instance with another {@code compute.vmId}. */
  private static String instanceWithVmId(String vmId) throws Exception {
    try (var in = AzureSimulator.class.getResourceAsStream("instance.json")) {
      String json = new String(in.readAllBytes(), UTF_8);
      assertThat(json).contains("\"vmId\": \"" + VM + "\"");
      return json.replace("\"vmId\": \"" + VM + "\"", "\"vmId\": \"" + vmId + "\"");
    }
  }

  private List<String> stateFiles() throws Exception {
    try (Stream<Path> files = Files.list(state)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  private List<KvpRecord> pool() throws Exception {
    return TestVm.pool(root);
  }

  private ProvisioningReport report() throws Exception {
    return TestVm.report(root);
  }

  private List<String> logs(String level) throws Exception {
    return KvpRecordFormat.decode(pool()).records().stream()
        .map(KvpRecordFormat.DecodedRecord::record)
        .filter(r -> r.kind() == KvprovRecord.Kind.LOG && r.level().name().equals(level))
        .map(r -> r.field(KvpRecordFormat.BODY).orElse(""))
        .toList();
  }

  @Test
  void firstBoot_isReadyUnderImdsId_andTheNextBoot_asksNoOne() throws Exception {
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      assertThat(provision(simulator)).as(stderr.toString(UTF_8)).isZero();

      assertThat(stateFiles())
          .contains(VM + ".provisioned", VM + ".ready", "vm-id")
          .noneMatch(name -> name.startsWith("unknown"));
      assertThat(Files.readString(state.resolve("vm-id"))).isEqualTo(VM + "\n");
      assertThat(simulator.imdsRequests()).as("IMDS asked once, for the id and the data").isOne();
      assertThat(simulator.reports())
          .extracting(AzureSimulator.Report::body)
          .containsExactly("{\"state\":\"Ready\"}");
      assertThat(report().get("vm_id")).hasValue(VM);
      int requests = simulator.requests();

      assertThat(provision(simulator)).as(stderr.toString(UTF_8)).isZero();

      assertThat(simulator.requests()).as("the second boot asks no one").isEqualTo(requests);
      assertThat(simulator.reports()).as("Ready once only").hasSize(1);
      assertThat(stateFiles()).noneMatch(name -> name.startsWith("unknown"));
      assertThat(logs("INFO")).anyMatch(body -> body.contains("for VM " + VM + ": nothing to do"));
    }
  }

  @Test
  void theImageOfSuchARoot_bootedWithSmbios_provisionsUnderItsNewId() throws Exception {
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      assertThat(provision(simulator)).isZero();
    }
    // Captured and booted on Azure: the firmware gives the new VM's id (Generation 2: as stored).
    Files.writeString(root.resolve("sys/class/dmi/id/product_uuid"), OTHER_VM + "\n");
    try (AzureSimulator simulator =
        AzureSimulator.builder().instanceJson(instanceWithVmId(OTHER_VM)).start()) {
      assertThat(provision(simulator)).as(stderr.toString(UTF_8)).isZero();

      assertThat(simulator.reports()).hasSize(1);
      assertThat(stateFiles()).contains(OTHER_VM + ".provisioned", OTHER_VM + ".ready");
    }
  }

  @Test
  void theImageOfSuchARoot_cleaned_provisionsUnderTheNewImdsId() throws Exception {
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      assertThat(provision(simulator)).isZero();
    }
    var cli = KvprovCommand.commandLine();
    cli.setOut(new PrintWriter(new StringWriter(), true));
    cli.setErr(new PrintWriter(new StringWriter(), true));
    assertThat(cli.execute("clean", "--root", root.toString())).isZero();
    assertThat(stateFiles()).doesNotContain("vm-id", VM + ".ready", VM + ".provisioned");

    try (AzureSimulator simulator =
        AzureSimulator.builder().instanceJson(instanceWithVmId(OTHER_VM)).start()) {
      assertThat(provision(simulator)).as(stderr.toString(UTF_8)).isZero();

      assertThat(simulator.reports()).hasSize(1);
      assertThat(stateFiles()).contains(OTHER_VM + ".provisioned", OTHER_VM + ".ready");
      assertThat(Files.readString(state.resolve("vm-id"))).isEqualTo(OTHER_VM + "\n");
    }
  }

  @Test
  void noIdFromImdsEither_isAWarning_andNoMarkerIsWritten() throws Exception {
    try (AzureSimulator simulator =
        AzureSimulator.builder()
            .instanceJson(instanceWithVmId("00000000-0000-0000-0000-000000000000"))
            .start()) {
      assertThat(provision(simulator)).as(stderr.toString(UTF_8)).isZero();

      assertThat(simulator.reports()).hasSize(1);
      String warning =
          "this VM has no id: SMBIOS gives none and IMDS's compute.vmId holds the placeholder"
              + " UUID 00000000-0000-0000-0000-000000000000; no marker is written";
      assertThat(logs("WARN")).anyMatch(body -> body.startsWith(warning));
      assertThat(stderr.toString(UTF_8)).contains(warning).doesNotContain("Exception");
      assertThat(stateFiles())
          .noneMatch(name -> name.endsWith(".provisioned") || name.endsWith(".ready"))
          .doesNotContain("vm-id");

      assertThat(provision(simulator)).isZero();
      assertThat(simulator.reports()).as("every boot provisions and reports").hasSize(2);
      assertThat(stateFiles()).noneMatch(name -> name.startsWith("unknown"));
    }
  }
}
