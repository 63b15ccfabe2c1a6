package dev.kvprov.agent;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.agent.sim.AzureSimulator;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kvprov provision --root IMAGE --offline}, an image build, with the simulator listening on
 * loopback and named in the configuration: not one request reaches it.
 */
class ProvisionOfflineTest {
  static final String VM = TestVm.ID;

  @TempDir Path dir;
  private Path root;
  private Path media;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @BeforeEach
  void setUp() throws Exception {
    root = TestVm.root(dir); // with SMBIOS: even a known id gets no marker offline
    media = TestVm.media(dir);
  }

  private Path config(AzureSimulator simulator, String extra) throws Exception {
    Path config = dir.resolve("kvprov.toml");
    Files.writeString(config, simulator.configSnippet() + "\n" + extra);
    return config;
  }

  /** {@code kvprov provision --root R --config C ARGS…}, as a user types it. */
  private int provision(Path config, String... args) {
    List<String> argv =
        new ArrayList<>(
            List.of("provision", "--root", root.toString(), "--config", config.toString()));
    argv.addAll(List.of(args));
    var cli = KvprovCommand.commandLine(argv.toArray(String[]::new));
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    return cli.execute(argv.toArray(String[]::new));
  }

  private List<KvpRecord> pool() throws Exception {
    Path pools = root.resolve("var/lib/hyperv");
    return Files.exists(pools.resolve(".kvp_pool_1"))
        ? PoolFile.open(pools, 1).read().records()
        : List.of();
  }

  private List<String> stateFiles() throws Exception {
    Path state = root.resolve("var/lib/kvprov");
    if (!Files.isDirectory(state)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(state)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void offline_provisionsFromTheMedia_andNoRequestReachesThePlatform() throws Exception {
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      Path config = config(simulator, "");

      assertThat(provision(config, "--offline", "--media-dir", media.toString()))
          .as(err.toString())
          .isZero();

      assertThat(simulator.requests()).as("requests to IMDS and the wireserver").isZero();
      assertThat(Files.readString(root.resolve("etc/passwd"))).contains("azureuser:x:");
      assertThat(Files.readString(root.resolve("etc/hostname"))).isNotBlank();
      assertThat(stateFiles())
          .as("no marker, no remembered id, nothing kept of the media")
          .noneMatch(
              name ->
                  name.endsWith(".provisioned")
                      || name.endsWith(".ready")
                      || name.equals("vm-id")
                      || name.equals("ovf-env.xml")
                      || name.equals("custom_data"));
      assertThat(pool())
          .as("no PROVISIONING_REPORT for the host to read at the image's first boot")
          .noneMatch(r -> r.key().equals("PROVISIONING_REPORT"));

      // The image's first real boot provisions as any first boot does, and reports Ready.
      assertThat(provision(config, "--media-dir", media.toString())).as(err.toString()).isZero();
      assertThat(simulator.reports())
          .extracting(AzureSimulator.Report::body)
          .containsExactly("{\"state\":\"Ready\"}");
      assertThat(stateFiles()).contains(VM + ".provisioned", VM + ".ready");
    }
  }

  @Test
  void theConfigurationKey_isOfflineToo() throws Exception {
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      Path config = config(simulator, "[provisioning]\noffline = true\n");

      assertThat(provision(config, "--media-dir", media.toString())).as(err.toString()).isZero();

      assertThat(simulator.requests()).isZero();
      assertThat(Files.readString(root.resolve("etc/passwd"))).contains("azureuser:x:");
    }
  }

  @Test
  void aFailedStep_offline_isItsExitCode_andStillNoRequest() throws Exception {
    Files.createDirectories(root.resolve("etc/hostname")); // cannot be written as a file
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      Path config = config(simulator, "");

      assertThat(provision(config, "--offline", "--media-dir", media.toString())).isEqualTo(12);

      assertThat(simulator.requests()).as("no NotReady either").isZero();
      assertThat(pool()).noneMatch(r -> r.key().equals("PROVISIONING_REPORT"));
    }
  }

  @Test
  void offline_withoutAMediaDirectory_isRefusedInOneLine() throws Exception {
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      ConfigOptions options = new ConfigOptions();
      options.root = root;
      options.config = config(simulator, "");
      var stderr = new java.io.ByteArrayOutputStream();

      int exit =
          ProvisionCommand.run(
              options,
              null,
              java.util.EnumSet.allOf(dev.kvprov.agent.provision.steps.Step.class),
              java.util.Optional.empty(),
              true,
              new java.io.PrintStream(stderr, true, UTF_8));

      assertThat(exit).isEqualTo(2);
      assertThat(stderr.toString(UTF_8))
          .isEqualTo(
              "kvprov provision: an offline run reads ovf-env.xml from --media-dir DIR, which was"
                  + " not given\n");
      assertThat(simulator.requests()).isZero();
    }
  }
}
