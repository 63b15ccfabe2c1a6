package dev.kvprov.agent;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvprov.agent.demo.DemoRoot;
import dev.kvprov.agent.sim.AzureSimulator;
import dev.kvprov.fixtures.Fixtures;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.otel.ProvisioningReport;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** A throwaway VM for the commands' tests: a demo root with a known VM id, and sample media. */
final class TestVm {
  /** The VM id its firmware gives, as the simulator's IMDS gives it too. */
  static final String ID = "a1b2c3d4-1111-4222-8333-444455556666";

  private TestVm() {}

  /** {@code dir/root}: a demo root that is a Generation 2 VM with the id {@link #ID}. */
  static Path root(Path dir) throws Exception {
    Path root = DemoRoot.create(dir.resolve("root"), true);
    Files.createDirectories(root.resolve("sys/class/dmi/id"));
    Files.createDirectories(root.resolve("sys/firmware/efi"));
    Files.writeString(root.resolve("sys/class/dmi/id/product_uuid"), ID.toUpperCase() + "\n");
    return root;
  }

  /** {@code dir/media}: the sample ovf-env.xml, whose password ends in the canary. */
  static Path media(Path dir) throws Exception {
    Path media = Files.createDirectories(dir.resolve("media"));
    Files.copy(Fixtures.path(Fixtures.OVF_ENV), media.resolve("ovf-env.xml"));
    return media;
  }

  /**
   * {@code dir/kvprov.toml}: IMDS and the wireserver of {@code simulator}, with budgets of two
   * seconds, so that a failing platform ends a test's run quickly.
   */
  static Path simulatorConfig(Path dir, AzureSimulator simulator) throws Exception {
    return Files.writeString(
        dir.resolve("kvprov.toml"),
        "[imds]\nendpoint = \""
            + simulator.imdsEndpoint()
            + "\"\ntotal_retry_timeout_secs = 2\nretry_interval_secs = 0.1\n\n"
            + "[wireserver]\nendpoint = \""
            + simulator.wireserverEndpoint()
            + "\"\ntotal_retry_timeout_secs = 2\n");
  }

  /**
   * {@code kvprov provision --root root --config config} with the media in {@code media}, as the
   * command line runs it; what it writes to stderr goes to {@code stderr}.
   *
   * @return its exit status
   */
  static int provision(Path root, Path config, Path media, OutputStream stderr) throws Exception {
    ConfigOptions options = new ConfigOptions();
    options.root = root;
    options.config = config;
    return ProvisionCommand.run(options, media, new PrintStream(stderr, true, UTF_8));
  }

  /** The records of {@code root}'s pool 1, where kvprov writes. */
  static List<KvpRecord> pool(Path root) throws Exception {
    return PoolFile.open(root.resolve("var/lib/hyperv"), 1).read().records();
  }

  /** The {@code PROVISIONING_REPORT} in {@code root}'s pool. */
  static ProvisioningReport report(Path root) throws Exception {
    return ProvisioningReport.parse(
        pool(root).stream()
            .filter(r -> r.key().equals("PROVISIONING_REPORT"))
            .findFirst()
            .orElseThrow()
            .value());
  }
}
