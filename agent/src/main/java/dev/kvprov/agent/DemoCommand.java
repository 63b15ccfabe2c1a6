package dev.kvprov.agent;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvprov.agent.demo.DemoRoot;
import dev.kvprov.agent.demo.SpanTree;
import dev.kvprov.agent.sim.AzureSimulator;
import dev.kvprov.agent.sim.Scenario;
import dev.kvprov.agent.sim.SimulatedNics;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvprov demo}: a whole first boot against a simulated Azure, in a directory of its own. */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Provision a throwaway root filesystem against a simulated Azure, and show the trace.",
      "",
      "Makes DIR/root (passwd, group, shadow, sshd_config, ...), starts the simulator",
      "with the scenario, runs `kvprov provision --root DIR/root` with a sample",
      "ovf-env.xml, then prints the span tree read back from the KVP pool, the",
      "PROVISIONING_REPORT, and where everything is. Needs root for the real",
      "useradd/usermod (bin/kvprov uses a user namespace otherwise)."
    },
    footer = {
      "",
      "",
      "Examples:",
      "  bin/kvprov demo",
      "  bin/kvprov demo --scenario flaky-imds --dir /tmp/kvprov-demo",
      "  bin/kvprov demo --scenario bad-media --bad custom-data"
    })
final class DemoCommand implements Callable<Integer> {
  static final String VM_ID = "a1b2c3d4-1111-4222-8333-444455556666";

  @Option(
      names = "--dir",
      paramLabel = "DIR",
      description = "Where to put everything (default: a new temporary directory).")
  Path dir;

  @Option(
      names = "--scenario",
      paramLabel = "NAME",
      defaultValue = "ok",
      completionCandidates = Scenario.Names.class,
      description = {
        "How the simulated platform behaves (default: ${DEFAULT-VALUE}), one of:",
        "${COMPLETION-CANDIDATES}"
      })
  String scenario;

  @Option(
      names = "--bad",
      paramLabel = "FIELD",
      description =
          "With --scenario bad-media: the field the platform gets wrong, refused before any"
              + " change: password (over 72 characters), custom-data (not base64), user (a system"
              + " group's name) or hostname (a label over 63 characters; IMDS's answer is refused"
              + " with it). Default: password.")
  String bad;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    Scenario chosen;
    try {
      chosen = Scenario.parse(scenario);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    if (bad != null && chosen != Scenario.BAD_MEDIA) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--bad goes with --scenario bad-media");
    }
    if (chosen == Scenario.BAD_MEDIA && bad == null) {
      bad = "password";
    }
    if (bad != null && !BAD_FIELDS.contains(bad)) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "unknown field for --bad: '" + bad + "'; one of " + String.join(", ", BAD_FIELDS));
    }
    PrintStream out = System.out;
    Path base =
        dir != null ? Files.createDirectories(dir) : Files.createTempDirectory("kvprov-demo");
    Path root = base.resolve("root");
    if (Files.exists(root.resolve("etc/passwd"))) {
      out.println("kvprov demo: " + root + " exists already: this run will find it provisioned");
    } else {
      DemoRoot.create(root, true);
      Files.createDirectories(root.resolve("sys/class/dmi/id"));
      Files.createDirectories(root.resolve("sys/firmware/efi"));
      Files.writeString(root.resolve("sys/class/dmi/id/product_uuid"), VM_ID + "\n");
      DemoRoot.network(root, chosen != Scenario.NETWORK_DOWN); // what a failure's snapshot reads
    }
    if (chosen == Scenario.CONFIG_ERROR) {
      // An image builder's typo: the VM cannot trust its configuration, and says so to Azure.
      Path dropIn = Files.createDirectories(root.resolve("etc/kvprov/kvprov.toml.d"));
      Files.writeString(
          dropIn.resolve("50-image.toml"),
          "# written by kvprov demo --scenario config-error\n[imds]\nread_timeout_secs = \"soon\"\n");
    }
    Path media = Files.createDirectories(base.resolve("media"));
    if (chosen == Scenario.IMDS_DOWN_NO_MEDIA) {
      Files.deleteIfExists(media.resolve("ovf-env.xml"));
    } else {
      String sample;
      try (InputStream in = DemoCommand.class.getResourceAsStream("demo/ovf-env.xml")) {
        sample = new String(in.readAllBytes(), UTF_8);
      }
      if (chosen == Scenario.PPS_RUNNING || chosen == Scenario.PPS_SAVABLE) {
        // The pool's media: a placeholder VM, its customer's come from IMDS once handed over.
        sample =
            sample
                .replace(
                    "<PreprovisionedVm>false</PreprovisionedVm>",
                    "<PreprovisionedVm>true</PreprovisionedVm>")
                .replace(
                    "<PreprovisionedVmType>None</PreprovisionedVmType>",
                    "<PreprovisionedVMType>"
                        + (chosen == Scenario.PPS_RUNNING ? "Running" : "Savable")
                        + "</PreprovisionedVMType>");
      }
      if (chosen == Scenario.BAD_MEDIA) {
        sample = badMedia(sample);
      }
      if (chosen == Scenario.GPA) {
        sample =
            sample.replace(
                "<PreprovisionedVm>false</PreprovisionedVm>",
                "<PreprovisionedVm>false</PreprovisionedVm>\n"
                    + "      <ProvisionGuestProxyAgent>true</ProvisionGuestProxyAgent>");
        DemoRoot.guestProxyAgent(root);
      }
      Files.writeString(media.resolve("ovf-env.xml"), sample);
    }
    if (!isRoot()) {
      out.println(
          "kvprov demo: not running as root: useradd and usermod will fail; run bin/kvprov demo,"
              + " which uses a user namespace (unshare --map-root-user) when it can");
    }
    AzureSimulator.Builder platform =
        AzureSimulator.builder().scenario(chosen).imdsDelayMillis(1500);
    if (bad != null && (bad.equals("user") || bad.equals("hostname"))) {
      platform.instanceJson(badInstance());
    }
    if (chosen == Scenario.PPS_SAVABLE) {
      // The pool's NIC, which the simulated platform swaps for the customer's after Ready.
      Path classNet = root.resolve("sys/class/net");
      SimulatedNics.loopback(classNet);
      SimulatedNics.plug(classNet, "eth0", 2);
      platform.nics(classNet);
    }
    try (AzureSimulator simulator = platform.start()) {
      if (chosen == Scenario.CERTIFICATE_KEY) {
        // A key named by its certificate's fingerprint alone, as Azure's classic deployments
        // write it: the wireserver's goal state delivers the certificate.
        Path env = media.resolve("ovf-env.xml");
        Files.writeString(
            env,
            AzureSimulator.withCertificateKey(
                Files.readString(env), simulator.certificateThumbprint()));
      }
      Path config = base.resolve("kvprov.toml");
      // Demo deadlines are seconds, not the production minutes: failure scenarios end quickly.
      Files.writeString(
          config,
          "[imds]\nendpoint = \""
              + simulator.imdsEndpoint()
              + "\"\ntotal_retry_timeout_secs = 8\n"
              + "retry_interval_secs = 0.2\nread_timeout_secs = 3\n\n"
              + "[wireserver]\nendpoint = \""
              + simulator.wireserverEndpoint()
              + "\"\ntotal_retry_timeout_secs = 8\n"
              + (chosen == Scenario.DIAG_RECORDS
                  ? "\n[kvp]\nformats = [\"kvprov\", \"diag\"]\n"
                  : "")
              + "\n[preprovisioning]\nnic_detach_timeout_secs = 10\nnic_attach_timeout_secs = 10\n");
      out.println(
          "== kvprov demo: scenario " + chosen.cliName() + " (" + chosen.description() + ")");
      out.println("== provisioning " + root + " (trace on stderr as it happens)");
      out.flush();
      ConfigOptions options = new ConfigOptions();
      options.root = root;
      options.config = config;
      int exit = ProvisionCommand.run(options, media, System.err);
      System.err.flush();

      Path pool = root.resolve("var/lib/hyperv/.kvp_pool_1");
      List<KvpRecord> records =
          Files.exists(pool) ? PoolFile.builder().file(pool).build().read().records() : List.of();
      out.println();
      out.println("== span tree, read back from the KVP pool (" + records.size() + " records)");
      SpanTree.print(records, out);
      out.println();
      out.println("== PROVISIONING_REPORT");
      out.println(
          "  "
              + records.stream()
                  .filter(r -> r.key().equals("PROVISIONING_REPORT"))
                  .map(KvpRecord::value)
                  .findFirst()
                  .orElse("(none)"));
      out.println();
      out.println("== what the platform received");
      simulator.reports().forEach(r -> out.println("  " + r.protocol() + ": " + r.body()));
      if (simulator.reports().isEmpty()) {
        out.println("  nothing: no report reached the simulated wireserver");
      }
      out.println();
      out.println("== where everything is");
      out.println("  root filesystem:  " + root);
      out.println("  KVP pool:         " + pool + "   (try: kvp tree --file " + pool + ")");
      if (chosen == Scenario.DIAG_RECORDS) {
        out.println("  DIAG records:     kvp list --writer azure-init-diag --file " + pool);
      }
      out.println("  markers:          " + root.resolve("var/lib/kvprov"));
      out.println("  configuration:    " + config);
      out.println(
          "  provisioning media:  "
              + media
              + "   (its sample password is a canary: grep any output for it)");
      out.println("  exit status:      " + exit);
      return exit;
    }
  }

  static final List<String> BAD_FIELDS = List.of("password", "custom-data", "user", "hostname");

  /** The sample media with the field {@code --bad} names made impossible. */
  private String badMedia(String sample) {
    return switch (bad) {
      // Over Azure's 72, still ending in the canary: no message may quote it.
      case "password" ->
          sample.replace(
              "<UserPassword>Demo-Passw0rd.never-log-me</UserPassword>",
              "<UserPassword>" + "Demo-Passw0rd.".repeat(5) + "never-log-me</UserPassword>");
      case "custom-data" ->
          sample.replaceFirst("<CustomData>", "<CustomData>#cloud-config (not base64) ");
      default -> sample;
    };
  }

  /** IMDS's sample answer with the user or host name {@code --bad} names made impossible. */
  private String badInstance() throws IOException {
    String json;
    try (InputStream in = AzureSimulator.class.getResourceAsStream("instance.json")) {
      json = new String(in.readAllBytes(), UTF_8);
    }
    return bad.equals("user")
        ? json.replace("\"adminUsername\": \"azureuser\"", "\"adminUsername\": \"sudo\"")
        : json.replace(
            "\"computerName\": \"sim-vm\"",
            "\"computerName\": \"" + "demo-".repeat(13) + "vm.example\"");
  }

  private static boolean isRoot() {
    try {
      return Files.readString(Path.of("/proc/self/status"), UTF_8)
          .lines()
          .anyMatch(l -> l.matches("Uid:\\s+0\\s.*"));
    } catch (IOException e) {
      return false;
    }
  }
}
