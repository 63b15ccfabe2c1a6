package dev.kvprov.agent;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.agent.sim.AzureSimulator;
import dev.kvprov.agent.sim.Scenario;
import dev.kvprov.agent.sim.SimulatedNics;
import dev.kvprov.fixtures.FullFileSystem;
import dev.kvprov.fixtures.FullFileSystem.Fullness;
import dev.kvprov.fixtures.HeldPool;
import dev.kvprov.fixtures.HostTools;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.otel.KvpRecordFormat;
import dev.kvprov.otel.KvprovRecord;
import dev.kvprov.otel.ProvisioningReport;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kvprov provision --root} against the simulator: real useradd/usermod, real files, the
 * pool, the markers and the reports the platform receives.
 */
class ProvisionEndToEndTest {
  static final String VM = TestVm.ID;

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
    return provision(simulator, "", "");
  }

  /** Runs with short deadlines, plus extra wireserver keys and extra tables. */
  private int provision(AzureSimulator simulator, String wireserverExtra, String extraTables)
      throws Exception {
    return TestVm.provision(root, config(simulator, wireserverExtra, extraTables), media, stderr);
  }

  private Path config(AzureSimulator simulator, String wireserverExtra, String extraTables)
      throws Exception {
    Path config = dir.resolve("kvprov.toml");
    // Short deadlines, so that the failure scenarios end in seconds.
    Files.writeString(
        config,
        "[imds]\nendpoint = \""
            + simulator.imdsEndpoint()
            + "\"\ntotal_retry_timeout_secs = 2\nretry_interval_secs = 0.1\n\n"
            + "[wireserver]\nendpoint = \""
            + simulator.wireserverEndpoint()
            + "\"\ntotal_retry_timeout_secs = 2\n"
            + wireserverExtra
            + "\n"
            + extraTables);
    return config;
  }

  /** {@code kvprov provision} in a process of its own. */
  private List<String> provisionCommand(AzureSimulator simulator) throws Exception {
    return provisionCommand(config(simulator, "", ""));
  }

  private List<String> provisionCommand(Path config) {
    return List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp",
        System.getProperty("java.class.path"),
        Main.class.getName(),
        "provision",
        "--root",
        root.toString(),
        "--config",
        config.toString(),
        "--media-dir",
        media.toString());
  }

  @Test
  void chosenSteps_runOnAProvisionedVm_andNeverTellThePlatformAgain() throws Exception {
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      assertThat(provision(simulator)).isZero();
      Path keys = root.resolve("home/azureuser/.ssh/authorized_keys");
      Files.delete(keys);
      ConfigOptions options = new ConfigOptions();
      options.root = root;
      options.config = config(simulator, "", "");
      PrintStream err = new PrintStream(stderr, true, UTF_8);

      // A full run finds nothing to do; the chosen step does its work.
      assertThat(ProvisionCommand.run(options, media, err)).isZero();
      assertThat(keys).doesNotExist();
      assertThat(
              ProvisionCommand.run(
                  options,
                  media,
                  java.util.EnumSet.of(dev.kvprov.agent.provision.steps.Step.SSH_KEYS),
                  err))
          .isZero();
      assertThat(keys).exists();
      assertThat(simulator.reports()).hasSize(1);

      // A chosen step that fails on a VM the platform saw Ready is in KVP only.
      Files.delete(root.resolve("etc/hostname"));
      Files.createDirectory(root.resolve("etc/hostname"));
      assertThat(
              ProvisionCommand.run(
                  options,
                  media,
                  java.util.EnumSet.of(dev.kvprov.agent.provision.steps.Step.HOSTNAME),
                  err))
          .isEqualTo(12);
      assertThat(simulator.reports()).hasSize(1);
      assertThat(report().get("reason")).contains("Hostname setup failed");
    }
  }

  @Test
  void aConfigurationError_isReportedToThePlatform_namingTheFileAndLine_throughTheEndpointsRead()
      throws Exception {
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      int exit = provision(simulator, "", "[telemetry]\nrecord_budget = \"many\"\n");

      assertThat(exit).isEqualTo(2);
      String config = dir.resolve("kvprov.toml").toString();
      assertThat(stderr.toString(UTF_8))
          .contains("kvprov provision: error: " + config + ":")
          .contains("telemetry.record_budget");
      assertThat(simulator.reports()).hasSize(1);
      assertThat(simulator.reports().get(0).body())
          .contains("NotReady")
          .contains("Configuration error in " + config + ":11|")
          .contains(config + ":11: telemetry.record_budget");
      ProvisioningReport report = report();
      assertThat(report.isSuccess()).isFalse();
      assertThat(report.get("step")).contains("config");
      assertThat(report.get("exit_code")).contains("2");
      // Nothing was provisioned.
      assertThat(Files.readString(root.resolve("etc/passwd"))).doesNotContain("azureuser");
    }
  }

  @Test
  void anUnreadableConfiguration_onAnImageRoot_isReportedInKvpOnly() throws Exception {
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      Path config = dir.resolve("broken.toml");
      Files.writeString(
          config, "[wireserver\nendpoint = \"" + simulator.wireserverEndpoint() + "\"\n");
      ConfigOptions options = new ConfigOptions();
      options.root = root;
      options.config = config;
      int exit = ProvisionCommand.run(options, media, new PrintStream(stderr, true, UTF_8));

      assertThat(exit).isEqualTo(2);
      // No endpoint could be read, and this is no running system: the built-in wireserver
      // belongs to whatever machine runs this, so only KVP hears of it: no attempt is made.
      assertThat(simulator.reports()).isEmpty();
      assertThat(report().get("reason")).contains("Configuration error in " + config + ":1");
      assertThat(stderr.toString(UTF_8)).doesNotContain("wireserver.attempt");
    }
  }

  @Test
  void aConfigurationError_onAVmProvisionedBefore_isNotReportedAsAFailedProvisioning()
      throws Exception {
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      assertThat(provision(simulator)).isZero();
      assertThat(provision(simulator, "", "[telemetry]\nrecord_budget = \"many\"\n")).isEqualTo(2);

      assertThat(simulator.reports())
          .extracting(AzureSimulator.Report::body)
          .containsExactly("{\"state\":\"Ready\"}");
      assertThat(stderr.toString(UTF_8))
          .contains("this VM was provisioned already; nothing is reported");
    }
  }

  @Test
  void aStateDirectoryWithNoRoomAtAll_isAWarning_theVmIsReportedReady_andTheNextBootIsHarmless()
      throws Exception {
    FullFileSystem.assumeAvailable();
    Path state = Files.createDirectories(root.resolve("var/lib/kvprov"));
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      FullFileSystem.Run full =
          FullFileSystem.run(state, Fullness.NO_SPACE_NO_INODES, provisionCommand(simulator));

      assertThat(full.exit()).as(String.join("\n", full.lines())).isZero();
      assertThat(full.listing()).isEmpty();
      assertThat(simulator.reports())
          .extracting(AzureSimulator.Report::body)
          .containsExactly("{\"state\":\"Ready\"}");
      assertThat(report().isSuccess()).isTrue();
      assertThat(logs("WARN"))
          .anyMatch(
              l ->
                  l.contains("the VM is set up, but its marker could not be written")
                      && l.contains("No space left on device"))
          .noneMatch(l -> l.contains("Exception"));
    }
    // The mount is gone, and the markers with it: the next boot sets the VM up again, to the
    // same result, and is Ready again.
    try (AzureSimulator next = AzureSimulator.builder().start()) {
      assertThat(provision(next)).as(stderr.toString(UTF_8)).isZero();
      assertThat(next.reports()).hasSize(1);
    }
    assertThat(Files.readAllLines(root.resolve("etc/passwd")))
        .filteredOn(l -> l.startsWith("azureuser:"))
        .hasSize(1);
    assertThat(Files.readAllLines(root.resolve("home/azureuser/.ssh/authorized_keys")))
        .doesNotHaveDuplicates();
    assertThat(root.resolve("var/lib/kvprov/" + VM + ".ready")).exists();
  }

  @Test
  void aPoolLockedPastTheWholeRun_endsTheRunAnyway_andTheReportLandsOnceTheLockIsFreed()
      throws Exception {
    PoolFile pool = PoolFile.open(Files.createDirectories(root.resolve("var/lib/hyperv")), 1);
    pool.append(new KvpRecord("someone-else", "x"));
    Path output = dir.resolve("provision.out");
    Process run;
    try (AzureSimulator simulator = AzureSimulator.builder().start();
        HeldPool held = HeldPool.hold(pool.path())) {
      Path config =
          config(
              simulator,
              "",
              "[telemetry]\nkvp_lock_timeout_secs = 1\nlate_records_wait_secs = 120\n");
      ProcessBuilder builder =
          new ProcessBuilder(provisionCommand(config))
              .redirectErrorStream(true)
              .redirectOutput(output.toFile());
      builder.environment().remove("JOURNAL_STREAM");
      run = builder.start();
      assertThat(run.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();

      // The run ended, Ready was sent, logins may start: the lock is still held.
      assertThat(run.exitValue()).as(Files.readString(output)).isZero();
      assertThat(simulator.reports())
          .extracting(AzureSimulator.Report::body)
          .containsExactly("{\"state\":\"Ready\"}");
    }
    List<String> lines = Files.readAllLines(output);
    String handover =
        lines.stream()
            .filter(l -> l.contains("handed over late records"))
            .findFirst()
            .orElseThrow();
    assertThat(handover)
        .matches(
            "kvprov telemetry: the KVP sink handed over late records: the pool .*\\.kvp_pool_1"
                + " stayed locked by another writer: \\d+ record\\(s\\) and the provisioning"
                + " report go to a background writer \\(pid \\d+\\) that waits up to 120 s"
                + " for the lock; it logs to .*/var/lib/kvprov/late-records.log");
    assertThat(lines).noneMatch(l -> l.contains("lost"));

    long writer = Long.parseLong(handover.replaceAll(".*\\(pid (\\d+)\\).*", "$1"));
    ProcessHandle.of(writer)
        .ifPresent(p -> p.onExit().orTimeout(60, java.util.concurrent.TimeUnit.SECONDS).join());
    assertThat(report().isSuccess()).isTrue();
    assertThat(pool().get(0).key()).isEqualTo("someone-else");
    assertThat(spanNames())
        .contains("provision", "provision.user", "provision.ssh_keys", "wireserver.report");
    assertThat(Files.readString(root.resolve("var/lib/kvprov/late-records.log")))
        .contains("kvprov late-records: wrote ")
        .contains(" record(s) and the provisioning report to ");
    assertNoCanary();
  }

  @Test
  void aStateDirectoryWithNoDataBlockLeft_stillGetsBothMarkers_empty() throws Exception {
    FullFileSystem.assumeAvailable();
    Path state = Files.createDirectories(root.resolve("var/lib/kvprov"));
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      FullFileSystem.Run full =
          FullFileSystem.run(state, Fullness.NO_SPACE, provisionCommand(simulator));

      assertThat(full.exit()).as(String.join("\n", full.lines())).isZero();
      // The report's number needs a data block and is not kept (a WARN says so); its lock file,
      // empty, is made all the same.
      assertThat(full.listing())
          .containsExactlyInAnyOrder(
              VM + ".provisioned 0", VM + ".ready 0", "verdict-generation.lock 0");
      assertThat(logs("WARN")).noneMatch(l -> l.contains("marker"));
    }
  }

  @Test
  void aBootKilledInsideUseradd_betweenPasswdAndShadow_isRepairedByTheNextRun() throws Exception {
    // useradd writes passwd, then shadow: a FIFO where it writes the new shadow holds it there,
    // passwd written and shadow not, until the whole boot is killed.
    Path newShadow = root.resolve("etc/shadow+");
    assertThat(new ProcessBuilder("mkfifo", newShadow.toString()).start().waitFor()).isZero();
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      Process boot =
          new ProcessBuilder(provisionCommand(simulator))
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("killed.log").toFile())
              .start();
      try {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!Files.readString(root.resolve("etc/passwd")).contains("azureuser:")
            && System.nanoTime() < deadline) {
          Thread.sleep(20);
        }
      } finally {
        // The whole boot dies, useradd with it (as in a power cut: nothing of it runs on).
        List<ProcessHandle> all = new java.util.ArrayList<>(boot.descendants().toList());
        all.add(boot.toHandle());
        all.forEach(ProcessHandle::destroyForcibly);
        for (ProcessHandle process : all) {
          process.onExit().get();
        }
      }
    }
    // The state the crash left: in passwd, not in shadow, the lock files behind, a half-written
    // new shadow file.
    assertThat(Files.readString(root.resolve("etc/passwd"))).contains("azureuser:");
    assertThat(Files.readString(root.resolve("etc/shadow"))).doesNotContain("azureuser:");
    assertThat(root.resolve("etc/passwd.lock")).exists();
    assertThat(root.resolve("etc/shadow.lock")).exists();
    Files.delete(newShadow);
    Files.writeString(newShadow, "root:*:19000:0:99");

    try (AzureSimulator next = AzureSimulator.builder().start()) {
      assertThat(provision(next)).as(stderr.toString(UTF_8)).isZero();
      assertThat(next.reports())
          .extracting(AzureSimulator.Report::body)
          .containsExactly("{\"state\":\"Ready\"}");
    }
    assertThat(Files.readAllLines(root.resolve("etc/shadow")))
        .filteredOn(l -> l.startsWith("azureuser:"))
        .singleElement()
        .satisfies(l -> assertThat(l.split(":")[1]).startsWith("$6$"));
    assertThat(root.resolve("home/azureuser/.ssh/authorized_keys")).isNotEmptyFile();
    try (var etc = Files.list(root.resolve("etc"))) {
      assertThat(etc.map(p -> p.getFileName().toString()))
          .noneMatch(n -> n.matches("(passwd|shadow|group|gshadow)(\\.lock|\\+)"));
    }
    AccountFilesAssert.consistent(root);
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(
      strings = {"home", "home/azureuser", "etc/sudoers.d", "etc/ssh", "etc/ssh/sshd_config.d"})
  void anImageWhoseLinksLeadOutOfIt_getsNothingWrittenOutside(String linked) throws Exception {
    // What the image had there now lives outside it, and the image links to it absolutely.
    Path outside = Files.createDirectories(dir.resolve("outside"));
    Path inImage = root.resolve(linked);
    if (Files.isDirectory(inImage)) {
      try (var files = Files.list(inImage)) {
        for (Path f : files.toList()) {
          if (Files.isRegularFile(f)) {
            Files.copy(f, outside.resolve(f.getFileName()));
          }
        }
      }
      try (var tree = Files.walk(inImage)) {
        tree.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
    Files.createDirectories(inImage.getParent());
    Files.createSymbolicLink(inImage, outside.toAbsolutePath());
    Map<Path, String> before = contents(outside);

    int exit;
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      exit = provision(simulator);
    }

    assertThat(contents(outside)).as("exit %d: %s", exit, stderr.toString(UTF_8)).isEqualTo(before);
    if (linked.startsWith("home")) {
      assertThat(exit).isEqualTo(13);
      assertThat(report().get("detail").orElseThrow())
          .contains("leads out of it")
          .contains("refusing");
    }
  }

  private static Map<Path, String> contents(Path dir) throws Exception {
    Map<Path, String> contents = new java.util.TreeMap<>();
    try (var files = Files.walk(dir)) {
      for (Path f : files.toList()) {
        contents.put(dir.relativize(f), Files.isRegularFile(f) ? Files.readString(f) : "(dir)");
      }
    }
    return contents;
  }

  @Test
  void aRun_recordsTheBootMilestonesItSees_kvprovsStartAndReady() throws Exception {
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      assertThat(provision(simulator)).as(stderr.toString(UTF_8)).isZero();
    }

    List<KvprovRecord> milestones =
        KvpRecordFormat.decode(pool()).records().stream()
            .map(KvpRecordFormat.DecodedRecord::record)
            .filter(r -> r.kind() == KvprovRecord.Kind.EVENT)
            .filter(r -> r.field(KvpRecordFormat.EVENT).orElse("").startsWith("boot milestone: "))
            .toList();
    assertThat(milestones)
        .extracting(r -> r.field(KvpRecordFormat.EVENT).orElseThrow())
        .containsExactly("boot milestone: kvprov", "boot milestone: ready");
    assertThat(milestones.get(0).time().orElseThrow())
        .as("kvprov's start: this JVM's")
        .isBeforeOrEqualTo(milestones.get(1).time().orElseThrow());
  }

  /** The bodies of the pool's log records of {@code level}. */
  private List<String> logs(String level) throws Exception {
    return KvpRecordFormat.decode(pool()).records().stream()
        .map(KvpRecordFormat.DecodedRecord::record)
        .filter(r -> r.kind() == KvprovRecord.Kind.LOG && r.level().name().equals(level))
        .map(r -> r.field(KvpRecordFormat.BODY).orElse(""))
        .toList();
  }

  private List<KvpRecord> pool() throws Exception {
    return TestVm.pool(root);
  }

  private ProvisioningReport report() throws Exception {
    return TestVm.report(root);
  }

  private List<String> spanNames() throws Exception {
    return KvpRecordFormat.decode(pool()).records().stream()
        .map(KvpRecordFormat.DecodedRecord::record)
        .filter(r -> r.kind() == KvprovRecord.Kind.END)
        .map(r -> r.name().orElseThrow())
        .toList();
  }

  /** The names of the spans that ended failed, in order. */
  private List<String> failedSpans() throws Exception {
    return KvpRecordFormat.decode(pool()).records().stream()
        .map(KvpRecordFormat.DecodedRecord::record)
        .filter(r -> r.kind() == KvprovRecord.Kind.END)
        .filter(r -> r.status().filter("error"::equals).isPresent())
        .map(r -> r.name().orElseThrow())
        .toList();
  }

  private void assertNoCanary() throws Exception {
    String poolBytes =
        new String(Files.readAllBytes(root.resolve("var/lib/hyperv/.kvp_pool_1")), UTF_8);
    assertThat(poolBytes).doesNotContain("never-log-me");
    assertThat(stderr.toString(UTF_8)).doesNotContain("never-log-me");
    // Nor the hash that stands for it: telemetry shows the command without it.
    for (String line : Files.readAllLines(root.resolve("etc/shadow"))) {
      if (line.startsWith("azureuser:$6$")) {
        String hash = line.split(":")[1];
        assertThat(poolBytes).doesNotContain(hash);
        assertThat(stderr.toString(UTF_8)).doesNotContain(hash);
      }
    }
  }

  @Test
  void aPasswordInAnotherNamespace_isSet_andStaysOutOfThePoolStderrAndTheKeptMedia()
      throws Exception {
    Path ovf = media.resolve("ovf-env.xml");
    Files.writeString(
        ovf,
        Files.readString(ovf)
            .replaceFirst(
                "<UserPassword>[^<]*</UserPassword>",
                "<x:UserPassword xmlns:x=\"urn:example:not-azure\">Foreign#never-log-me"
                    + "</x:UserPassword>"));
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      assertThat(provision(simulator)).as(stderr.toString(UTF_8)).isZero();
    }

    assertThat(Files.readAllLines(root.resolve("etc/shadow")))
        .anyMatch(l -> l.startsWith("azureuser:$6$"));
    Path kept = root.resolve("var/lib/kvprov/ovf-env.xml");
    assertThat(Files.readString(kept)).contains("UserPassword").doesNotContain("never-log-me");
    assertNoCanary();
  }

  @Test
  void ok_provisions_reportsReady_andASecondRunDoesNothing() throws Exception {
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      assertThat(provision(simulator)).as(stderr.toString(UTF_8)).isZero();

      assertThat(Files.readString(root.resolve("etc/passwd"))).contains("azureuser:x:");
      assertThat(Files.readString(root.resolve("etc/hostname"))).isEqualTo("sim-vm\n");
      assertThat(root.resolve("var/lib/kvprov/" + VM + ".provisioned")).exists();
      assertThat(root.resolve("var/lib/kvprov/" + VM + ".ready")).exists();
      assertThat(simulator.reports())
          .extracting(AzureSimulator.Report::body)
          .containsExactly("{\"state\":\"Ready\"}");
      assertThat(report().isSuccess()).isTrue();
      assertThat(report().get("vm_id")).contains(VM);
      assertThat(spanNames())
          .contains(
              "imds.fetch",
              "media.read_ovf",
              "provision.hostname",
              "provision.user",
              "provision.password",
              "provision.sudoers",
              "provision.sshd",
              "provision.ssh_keys",
              "wireserver.report",
              "provision");
      assertNoCanary();

      int before = pool().size();
      assertThat(provision(simulator)).isZero();
      assertThat(simulator.reports()).hasSize(1);
      assertThat(pool()).as("one record saying there was nothing to do").hasSize(before + 1);
      List<KvprovRecord> added =
          KvpRecordFormat.decode(pool().subList(before, pool().size())).records().stream()
              .map(KvpRecordFormat.DecodedRecord::record)
              .toList();
      assertThat(added)
          .anyMatch(r -> r.field(KvpRecordFormat.BODY).orElse("").contains("nothing to do"));
      assertThat(added).noneMatch(r -> r.name().orElse("").startsWith("provision."));
    }
  }

  private void pooled(String type) throws Exception {
    Path file = media.resolve("ovf-env.xml");
    Files.writeString(
        file,
        Files.readString(file)
            .replace(
                "<PreprovisionedVm>false</PreprovisionedVm>",
                "<PreprovisionedVm>true</PreprovisionedVm>")
            .replace(
                "<PreprovisionedVmType>None</PreprovisionedVmType>",
                "<PreprovisionedVMType>" + type + "</PreprovisionedVMType>"));
  }

  @Test
  void aPreprovisionedRunningVm_isReadyInThePool_waits_thenProvisionsForItsCustomer()
      throws Exception {
    pooled("Running");
    try (AzureSimulator simulator =
        AzureSimulator.builder().scenario(Scenario.PPS_RUNNING).failures(2).start()) {
      assertThat(provision(simulator)).as(stderr.toString(UTF_8)).isZero();

      // Ready for the pool, then Ready for the customer.
      assertThat(simulator.reports())
          .extracting(AzureSimulator.Report::body)
          .containsExactly("{\"state\":\"Ready\"}", "{\"state\":\"Ready\"}");
    }
    List<KvprovRecord> waits =
        KvpRecordFormat.decode(pool()).records().stream()
            .map(KvpRecordFormat.DecodedRecord::record)
            .filter(
                r -> r.kind() == KvprovRecord.Kind.END && r.name().orElse("").equals("pps.wait"))
            .toList();
    assertThat(waits).hasSize(1);
    assertThat(
            waits
                .get(0)
                .attributes()
                .get(io.opentelemetry.api.common.AttributeKey.longKey("polls")))
        .isEqualTo(3L);
    assertThat(report().isSuccess()).isTrue();
    assertThat(Files.readString(root.resolve("etc/passwd"))).contains("azureuser:");
    // The customer's password (from the reprovisioning data) was set: a hash, never the canary.
    assertThat(Files.readAllLines(root.resolve("etc/shadow")))
        .anyMatch(l -> l.startsWith("azureuser:$6$"));
    assertNoCanary();
  }

  @Test
  void aPoolVmUnderSystemd_extendsItsStartTimeoutWhileItWaits_thenGivesItsCustomerAFullBoot()
      throws Exception {
    pooled("Running");
    Path output = dir.resolve("output.txt");
    Path socket = dir.resolve("notify");
    try (AzureSimulator simulator =
            AzureSimulator.builder().scenario(Scenario.PPS_RUNNING).failures(2).start();
        dev.kvprov.agent.provision.NotifySocket systemd =
            new dev.kvprov.agent.provision.NotifySocket(socket.toString())) {
      ProcessBuilder builder =
          new ProcessBuilder(provisionCommand(simulator))
              .redirectErrorStream(true)
              .redirectOutput(output.toFile());
      builder.environment().put("NOTIFY_SOCKET", socket.toString());
      Process run = builder.start();
      assertThat(run.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      assertThat(run.exitValue()).as(Files.readString(output)).isZero();

      // 3 min past the longest step (IMDS's read timeout, 60 s here) as the wait begins and
      // before each of the 3 polls; then the customer's boot: IMDS's 2 s, the wireserver's
      // 2 s and 3 min.
      assertThat(systemd.all())
          .containsExactly(
              "EXTEND_TIMEOUT_USEC=240000000",
              "EXTEND_TIMEOUT_USEC=240000000",
              "EXTEND_TIMEOUT_USEC=240000000",
              "EXTEND_TIMEOUT_USEC=240000000",
              "EXTEND_TIMEOUT_USEC=184000000");
    }
    assertThat(Files.readString(output)).doesNotContain("systemd cannot be told");
  }

  /** The guest's /sys/class/net with loopback and the pool's NIC. */
  private Path poolNic() throws Exception {
    Path classNet = root.resolve("sys/class/net");
    SimulatedNics.loopback(classNet);
    SimulatedNics.plug(classNet, "eth0", 2);
    return classNet;
  }

  @Test
  void aPreprovisionedSavableVm_isReadyInThePool_getsANewNic_thenProvisionsForItsCustomer()
      throws Exception {
    pooled("Savable");
    Path classNet = poolNic();
    try (AzureSimulator simulator =
        AzureSimulator.builder().scenario(Scenario.PPS_SAVABLE).nics(classNet).start()) {
      assertThat(provision(simulator)).as(stderr.toString(UTF_8)).isZero();

      // Ready for the pool, then Ready for the customer.
      assertThat(simulator.reports())
          .extracting(AzureSimulator.Report::body)
          .containsExactly("{\"state\":\"Ready\"}", "{\"state\":\"Ready\"}");
    }
    assertThat(spanNames())
        .containsSubsequence(
            "wireserver.report",
            "pps.nic_detach",
            "pps.nic_attach",
            "pps.wait",
            "provision.user",
            "wireserver.report");
    assertThat(report().isSuccess()).isTrue();
    assertThat(Files.readString(root.resolve("etc/passwd"))).contains("azureuser:");
    assertThat(Files.readAllLines(root.resolve("etc/shadow")))
        .anyMatch(l -> l.startsWith("azureuser:$6$"));
    assertNoCanary();
  }

  @Test
  void aSavableVmWhoseNicIsNeverTaken_warns_thenFailsWith18OnlyOnABoundedAttachWait_untouched()
      throws Exception {
    pooled("Savable");
    poolNic(); // the simulator is not given it: the NIC stays
    try (AzureSimulator simulator =
        AzureSimulator.builder().scenario(Scenario.PPS_SAVABLE).start()) {
      assertThat(
              provision(
                  simulator,
                  "",
                  "[preprovisioning]\nnic_detach_timeout_secs = 0.3\nnic_attach_timeout_secs = 1\n"))
          .isEqualTo(18);

      assertThat(simulator.reports()).hasSize(2);
      assertThat(simulator.reports().get(0).body()).isEqualTo("{\"state\":\"Ready\"}");
      assertThat(simulator.reports().get(1).body()).contains("Pre-provisioned VM not handed over");
    }
    assertThat(stderr.toString(UTF_8))
        .contains("preprovisioning.nic_detach_timeout_secs): waiting for a new NIC all the same");
    assertThat(report().get("step")).contains("pps");
    assertThat(report().get("detail").orElseThrow())
        .contains("preprovisioning.nic_attach_timeout_secs");
    assertThat(Files.readString(root.resolve("etc/passwd"))).doesNotContain("azureuser");
  }

  @Test
  void aSavableVmWhosePoolReadyAnswerIsLost_triesOnce_waitsForItsNic_endsReadyTwice()
      throws Exception {
    pooled("Savable");
    Path classNet = poolNic();
    try (AzureSimulator simulator =
        AzureSimulator.builder()
            .scenario(Scenario.PPS_SAVABLE)
            .nics(classNet)
            .poolReadyLost()
            .start()) {
      // A retry would go out a second after the lost answer and be accepted, as on the
      // customer's NIC after the resume: the pool would hear Ready twice.
      assertThat(provision(simulator, "read_timeout_secs = 1\n", ""))
          .as(stderr.toString(UTF_8))
          .isZero();

      assertThat(simulator.healthRequests())
          .as("one attempt for the pool, one for the customer")
          .isEqualTo(2);
      assertThat(simulator.reports())
          .extracting(AzureSimulator.Report::body)
          .containsExactly("{\"state\":\"Ready\"}", "{\"state\":\"Ready\"}");
    }
    assertThat(stderr.toString(UTF_8))
        .contains(
            "the pool's Ready was not confirmed (the health report got no answer in its one"
                + " attempt: json health: ");
    assertThat(spanNames())
        .containsSubsequence(
            "wireserver.report", "pps.nic_detach", "pps.nic_attach", "pps.wait", "provision.user");
    assertThat(failedSpans()).as("an answer expected to be lost is no failure").isEmpty();
    assertThat(report().isSuccess()).isTrue();
  }

  @Test
  void aSavableVmWhosePoolReadyIsRefused_triesOnce_neverReportsItsReadyFailed() throws Exception {
    pooled("Savable");
    poolNic(); // the simulator is not given it: the NIC stays
    int closedPort;
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closedPort = s.getLocalPort();
    }
    try (AzureSimulator simulator =
        AzureSimulator.builder().scenario(Scenario.PPS_SAVABLE).start()) {
      // No wireserver at all, and a retry budget far longer than the NIC waits: the pool's
      // Ready must not spend it, nor end as a failure report.
      Path config = dir.resolve("kvprov.toml");
      Files.writeString(
          config,
          "[imds]\nendpoint = \""
              + simulator.imdsEndpoint()
              + "\"\ntotal_retry_timeout_secs = 2\nretry_interval_secs = 0.1\n\n"
              + "[wireserver]\nendpoint = \"http://127.0.0.1:"
              + closedPort
              + "\"\ntotal_retry_timeout_secs = 3\n\n"
              + "[preprovisioning]\nnic_detach_timeout_secs = 0.3\n"
              + "nic_attach_timeout_secs = 0.3\n");
      ConfigOptions options = new ConfigOptions();
      options.root = root;
      options.config = config;

      // Not 20 (Ready not reported): the run went on to wait for the NIC, which never went.
      assertThat(ProvisionCommand.run(options, media, new PrintStream(stderr, true, UTF_8)))
          .as(stderr.toString(UTF_8))
          .isEqualTo(18);
    }
    assertThat(stderr.toString(UTF_8)).contains("the pool's Ready was not confirmed");
    List<KvprovRecord> readyAttempts =
        KvpRecordFormat.decode(pool()).records().stream()
            .map(KvpRecordFormat.DecodedRecord::record)
            .filter(r -> r.kind() == KvprovRecord.Kind.END)
            .takeWhile(r -> !r.name().orElse("").startsWith("pps."))
            .filter(r -> r.name().orElse("").equals("wireserver.attempt"))
            .toList();
    assertThat(readyAttempts).hasSize(1);
    assertThat(failedSpans())
        .as("the pool's Ready is no failure, nor the detach that did not come: the attach wait is")
        .first()
        .isEqualTo("pps.nic_attach");
    assertThat(report().get("reason")).hasValue("Pre-provisioned VM not handed over");
    assertThat(report().get("detail").orElseThrow())
        .contains("preprovisioning.nic_attach_timeout_secs");
  }

  @Test
  void aSavableVmWithNoNicToWatch_failsWith18_beforeThePoolHearsReady() throws Exception {
    pooled("Savable");
    try (AzureSimulator simulator =
        AzureSimulator.builder().scenario(Scenario.PPS_SAVABLE).start()) {
      assertThat(provision(simulator)).isEqualTo(18);

      assertThat(simulator.reports())
          .singleElement()
          .satisfies(r -> assertThat(r.body()).contains("Pre-provisioned VM not handed over"));
    }
    assertThat(report().get("detail").orElseThrow())
        .isEqualTo("the NICs in /sys/class/net cannot be watched: no such file or directory");
  }

  @Test
  void aRootProvisionedByAzureInit_isNotProvisionedAgain_isReportedReadyOnce() throws Exception {
    // azure-init's marker: an empty <vm id>.provisioned in its data directory, written before
    // its Ready report (which may never have arrived).
    Path marker = root.resolve("var/lib/azure-init/" + VM + ".provisioned");
    Files.createDirectories(marker.getParent());
    Files.createFile(marker);
    String passwd = Files.readString(root.resolve("etc/passwd"));

    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      assertThat(provision(simulator)).as(stderr.toString(UTF_8)).isZero();

      assertThat(simulator.imdsRequests()).as("nothing provisioned").isZero();
      assertThat(Files.readString(root.resolve("etc/passwd"))).isEqualTo(passwd);
      assertThat(root.resolve("etc/hostname")).doesNotExist();
      assertThat(spanNames()).doesNotContain("provision.user", "provision.hostname");
      assertThat(simulator.reports())
          .extracting(AzureSimulator.Report::body)
          .containsExactly("{\"state\":\"Ready\"}");
      assertThat(report().isSuccess()).isTrue();
      assertThat(stderr.toString(UTF_8))
          .contains("azure-init provisioned this VM (its marker is there): only Ready is reported");
      assertThat(marker).exists();
      assertThat(root.resolve("var/lib/kvprov/" + VM + ".ready")).exists();
      assertThat(root.resolve("var/lib/kvprov/" + VM + ".provisioned"))
          .as("kvprov's own markers, complete")
          .exists();

      assertThat(provision(simulator)).isZero();
      assertThat(simulator.reports()).as("Ready once only").hasSize(1);
    }
  }

  @Test
  void azureInitsMarkerForAnotherVm_doesNotStopProvisioning() throws Exception {
    Path marker =
        root.resolve("var/lib/azure-init/00000000-1111-4222-8333-444455556666.provisioned");
    Files.createDirectories(marker.getParent());
    Files.createFile(marker);

    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      assertThat(provision(simulator)).as(stderr.toString(UTF_8)).isZero();
    }
    assertThat(Files.readString(root.resolve("etc/passwd"))).contains("azureuser:x:");
  }

  @Test
  void azureInitsGroupsOption_replacesUserGroups() throws Exception {
    Path config;
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      config = config(simulator, "", "[user]\ngroups = [\"sudo\"]\n");
      ConfigOptions options = new ConfigOptions();
      options.root = root;
      options.config = config;
      int exit =
          ProvisionCommand.run(
              options,
              media,
              java.util.EnumSet.allOf(dev.kvprov.agent.provision.steps.Step.class),
              java.util.Optional.of(List.of("adm", "users")),
              new PrintStream(stderr, true, UTF_8));
      assertThat(exit).as(stderr.toString(UTF_8)).isZero();
    }
    String group = Files.readString(root.resolve("etc/group"));
    assertThat(group)
        .containsPattern("(?m)^adm:x:4:azureuser$")
        .containsPattern("(?m)^users:x:100:azureuser$")
        .containsPattern("(?m)^sudo:x:27:$");
  }

  @Test
  void azureInitsConfigureSshdPasswordAuthentication_false_leavesSshdAlone() throws Exception {
    String sshdConfig = Files.readString(root.resolve("etc/ssh/sshd_config"));
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      int exit =
          provision(simulator, "", "[ssh]\nconfigure_sshd_password_authentication = false\n");
      assertThat(exit).as(stderr.toString(UTF_8)).isZero();
    }
    assertThat(spanNames()).contains("provision.user").doesNotContain("provision.sshd");
    assertThat(stderr.toString(UTF_8))
        .contains("the sshd step does not run: ssh.configure_sshd_password_authentication = false");
    assertThat(root.resolve("etc/ssh/sshd_config.d/00-kvprov.conf")).doesNotExist();
    assertThat(Files.readString(root.resolve("etc/ssh/sshd_config"))).isEqualTo(sshdConfig);
  }

  @Test
  void imdsDown_reportsTheFailure_toKvpAndThePlatform_withTheSameText() throws Exception {
    Files.delete(media.resolve("ovf-env.xml")); // no media either: nothing to provision from
    try (AzureSimulator simulator = AzureSimulator.builder().scenario(Scenario.IMDS_DOWN).start()) {
      assertThat(provision(simulator)).isEqualTo(10);

      ProvisioningReport report = report();
      assertThat(report.isSuccess()).isFalse();
      assertThat(report.get("reason")).contains("Failed to fetch instance metadata");
      assertThat(report.get("step")).contains("imds");
      assertThat(simulator.reports()).hasSize(1);
      assertThat(simulator.reports().get(0).body())
          .contains("\"subStatus\":\"ProvisioningFailed\"")
          .contains("Failed to fetch instance metadata");
      assertThat(root.resolve("var/lib/kvprov/" + VM + ".provisioned")).doesNotExist();
      assertNoCanary();
    }
  }

  @Test
  void aReadyThatNeverArrived_isReportedNextBoot_withoutProvisioningAgain() throws Exception {
    try (AzureSimulator down =
        AzureSimulator.builder().scenario(Scenario.WIRESERVER_DOWN).start()) {
      assertThat(provision(down)).isEqualTo(20);
    }
    assertThat(root.resolve("var/lib/kvprov/" + VM + ".provisioned")).exists();
    assertThat(root.resolve("var/lib/kvprov/" + VM + ".ready")).doesNotExist();
    assertThat(report().get("reason")).contains("Failed to report ready");

    try (AzureSimulator up = AzureSimulator.builder().start()) {
      int before = pool().size();
      assertThat(provision(up)).isZero();

      assertThat(up.reports())
          .extracting(AzureSimulator.Report::body)
          .containsExactly("{\"state\":\"Ready\"}");
      assertThat(up.imdsRequests()).as("no second provisioning").isZero();
      assertThat(root.resolve("var/lib/kvprov/" + VM + ".ready")).exists();
      assertThat(report().isSuccess()).isTrue();
      assertThat(pool().size()).isGreaterThan(before);
    }
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.CsvSource({
    "SLOW_IMDS, 0, success",
    "FLAKY_IMDS, 0, success",
    "IMDS_MALFORMED, 0, success",
    "RETRY_AFTER, 0, success",
    "WIRESERVER_FLAKY, 0, success",
    "IMDS_DOWN, 0, success",
    "IMDS_STALLS, 0, success",
    "IMDS_DOWN_NO_MEDIA, 10, Failed to fetch instance metadata",
    "WIRESERVER_DOWN, 20, Failed to report ready",
    "WIRESERVER_STALLS, 20, Failed to report ready"
  })
  void everyScenario_endsWithTheRightExitCodeAndReport(Scenario scenario, int exit, String outcome)
      throws Exception {
    if (scenario == Scenario.IMDS_DOWN_NO_MEDIA) {
      Files.delete(media.resolve("ovf-env.xml"));
    }
    try (AzureSimulator simulator =
        AzureSimulator.builder().scenario(scenario).imdsDelayMillis(500).failures(1).start()) {
      assertThat(provision(simulator)).as(stderr.toString(UTF_8)).isEqualTo(exit);

      ProvisioningReport report = report();
      if (outcome.equals("success")) {
        assertThat(report.isSuccess()).isTrue();
      } else {
        assertThat(report.get("reason")).contains(outcome);
      }
      assertNoCanary();
    }
  }

  /** Adds to the media a key named by {@code fingerprint} alone, with no value. */
  private void addCertificateKey(String fingerprint) throws Exception {
    Path env = media.resolve("ovf-env.xml");
    Files.writeString(env, AzureSimulator.withCertificateKey(Files.readString(env), fingerprint));
  }

  /** What the real ssh-keygen makes of the public key of the certificate {@code der}. */
  private String sshKeygen(byte[] der) throws Exception {
    HostTools.assumeInstalled("ssh-keygen", "openssh-client");
    java.security.cert.Certificate certificate =
        java.security.cert.CertificateFactory.getInstance("X.509")
            .generateCertificate(new java.io.ByteArrayInputStream(der));
    Path pem = dir.resolve("certificate-key.pem");
    Files.writeString(
        pem,
        "-----BEGIN PUBLIC KEY-----\n"
            + java.util.Base64.getMimeEncoder()
                .encodeToString(certificate.getPublicKey().getEncoded())
            + "\n-----END PUBLIC KEY-----\n");
    Process keygen =
        new ProcessBuilder("ssh-keygen", "-i", "-m", "PKCS8", "-f", pem.toString()).start();
    String line = new String(keygen.getInputStream().readAllBytes(), UTF_8).strip();
    assertThat(keygen.waitFor()).isZero();
    return line;
  }

  @Test
  void aCertificateOnlyKey_fromTheGoalState_landsInAuthorizedKeys() throws Exception {
    try (AzureSimulator simulator =
        AzureSimulator.builder().scenario(Scenario.CERTIFICATE_KEY).start()) {
      addCertificateKey(simulator.certificateThumbprint());

      assertThat(provision(simulator)).as(stderr.toString(UTF_8)).isZero();

      assertThat(Files.readAllLines(root.resolve("home/azureuser/.ssh/authorized_keys")))
          .containsExactly(
              "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJWinwTTXHx4k8EYR2dTCWR804bXaMPytqRjud+bfvbj"
                  + " azureuser@workstation",
              sshKeygen(simulator.certificate()));
      io.opentelemetry.api.common.Attributes span =
          KvpRecordFormat.decode(pool()).records().stream()
              .map(KvpRecordFormat.DecodedRecord::record)
              .filter(r -> r.kind() == KvprovRecord.Kind.END)
              .filter(r -> r.name().orElseThrow().equals("wireserver.certificates"))
              .findFirst()
              .orElseThrow()
              .attributes();
      assertThat(
              span.get(
                  io.opentelemetry.api.common.AttributeKey.stringArrayKey("certificates.matched")))
          .containsExactly(simulator.certificateThumbprint());
      assertThat(span.get(io.opentelemetry.api.common.AttributeKey.longKey("certificates.count")))
          .isEqualTo(1L);
      assertThat(report().isSuccess()).isTrue();
      assertNoCanary();
    }
  }

  @Test
  void aCertificateOnlyKey_thatNoCertificateMatches_failsTheSshKeysStep_namingTheFingerprint()
      throws Exception {
    String fingerprint = "3A4F0C1E2D3B4A5968778695A4B3C2D1E0F1A2B3";
    try (AzureSimulator simulator =
        AzureSimulator.builder().scenario(Scenario.CERTIFICATE_KEY).start()) {
      addCertificateKey(fingerprint);

      assertThat(provision(simulator)).as(stderr.toString(UTF_8)).isEqualTo(17);

      ProvisioningReport report = report();
      assertThat(report.get("reason")).contains("SSH key setup failed");
      assertThat(report.get("step")).contains("ssh_keys");
      assertThat(report.get("detail"))
          .contains(
              "the key with fingerprint "
                  + fingerprint
                  + " is in none of the goal state's 1 certificate(s)");
      assertThat(simulator.reports()).hasSize(1);
      assertThat(simulator.reports().get(0).body()).contains("NotReady").contains(fingerprint);
      assertThat(Files.readString(root.resolve("etc/passwd"))).doesNotContain("azureuser");
      assertNoCanary();
    }
  }

  @Test
  void aCertificateOnlyKey_isNotFetched_whenImdsGivesKeys() throws Exception {
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      addCertificateKey("3A4F0C1E2D3B4A5968778695A4B3C2D1E0F1A2B3");

      assertThat(provision(simulator)).as(stderr.toString(UTF_8)).isZero();

      assertThat(spanNames()).doesNotContain("wireserver.certificates");
      assertThat(Files.readString(root.resolve("home/azureuser/.ssh/authorized_keys")))
          .contains("deploy@pipeline")
          .doesNotContain("ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC0");
    }
  }

  @Test
  void theCanary_isInNoFileOfTheRoot_butTheShadowHash() throws Exception {
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      assertThat(provision(simulator)).isZero();
    }
    try (var files = Files.walk(root)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        assertThat(new String(Files.readAllBytes(file), UTF_8))
            .as(file.toString())
            .doesNotContain("never-log-me");
      }
    }
  }

  @Test
  void aRunKilledMidStep_leavesTheStepStartedAndNeverFinished_andTheNextRunCompletes()
      throws Exception {
    Path config = dir.resolve("slow.toml");
    try (AzureSimulator slow =
        AzureSimulator.builder().scenario(Scenario.SLOW_IMDS).imdsDelayMillis(30_000).start()) {
      Files.writeString(
          config,
          "[imds]\nendpoint = \""
              + slow.imdsEndpoint()
              + "\"\nread_timeout_secs = 60\n\n"
              + "[wireserver]\nendpoint = \""
              + slow.wireserverEndpoint()
              + "\"\n");
      Process run =
          new ProcessBuilder(provisionCommand(config))
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("killed.log").toFile())
              .start();
      try {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!spanStarted("imds.attempt") && System.nanoTime() < deadline) {
          Thread.sleep(50);
        }
        assertThat(spanStarted("imds.attempt")).as("the run reached IMDS").isTrue();
      } finally {
        run.destroyForcibly().waitFor(); // SIGKILL mid-step
      }
    }
    List<KvprovRecord> records =
        KvpRecordFormat.decode(pool()).records().stream()
            .map(KvpRecordFormat.DecodedRecord::record)
            .toList();
    assertThat(records)
        .extracting(r -> r.kind() + " " + r.name().orElse(""))
        .contains("START provision", "START imds.fetch", "START imds.attempt")
        .doesNotContain("END provision", "END imds.attempt");

    try (AzureSimulator ok = AzureSimulator.builder().start()) {
      assertThat(provision(ok)).isZero();
    }
    assertThat(report().isSuccess()).isTrue();
  }

  private boolean spanStarted(String name) throws Exception {
    if (!Files.exists(root.resolve("var/lib/hyperv/.kvp_pool_1"))) {
      return false;
    }
    return KvpRecordFormat.decode(pool()).records().stream()
        .map(KvpRecordFormat.DecodedRecord::record)
        .anyMatch(r -> r.kind() == KvprovRecord.Kind.START && r.name().orElse("").equals(name));
  }

  @Test
  void hostileMetadata_isRefusedWithAReason_andTheMediaDoNotOverruleIt() throws Exception {
    String hostile =
        new String(AzureSimulator.class.getResourceAsStream("instance.json").readAllBytes(), UTF_8)
            .replace("\"adminUsername\": \"azureuser\"", "\"adminUsername\": \"-oProxyCommand=x\"");
    try (AzureSimulator simulator = AzureSimulator.builder().instanceJson(hostile).start()) {
      // The media are there, but IMDS did answer: a refusal is a decision the media must not
      // overrule, unlike no answer at all. IMDS answered: its data are refused, not IMDS.
      assertThat(provision(simulator)).isEqualTo(11);
    }
    assertThat(report().get("reason")).contains("Provisioning data refused");
    assertThat(report().get("step")).contains("check");
    assertThat(report().get("detail").orElseThrow())
        .contains("adminUsername: user name '-oProxyCommand=x' is not a portable user name");
    assertThat(Files.readString(root.resolve("etc/passwd")))
        .doesNotContain("ProxyCommand")
        .doesNotContain("azureuser");
  }

  @Test
  void aHostileOvfEnv_isRefusedWithAReason_andNothingIsProvisioned() throws Exception {
    Files.writeString(
        media.resolve("ovf-env.xml"),
        "<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/shadow\">]><x>&e;</x>");
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      assertThat(provision(simulator)).isEqualTo(11);
    }
    assertThat(report().get("reason")).contains("Failed to read provisioning media");
    assertThat(report().get("detail").orElseThrow()).contains("DOCTYPE");
    assertThat(Files.readString(root.resolve("etc/passwd"))).doesNotContain("azureuser");
  }

  @Test
  void inProgress_isReportedWhenAsked_groupsComeFromTheConfiguration() throws Exception {
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      int exit =
          provision(
              simulator,
              "report_in_progress = true\n",
              "[user]\ngroups = [\"sudo\", \"nosuchgroup\"]\n");

      assertThat(exit).as(stderr.toString(UTF_8)).isZero();
      assertThat(simulator.reports())
          .extracting(AzureSimulator.Report::body)
          .containsExactly(
              "{\"state\":\"NotReady\",\"details\":{\"subStatus\":\"Provisioning\",\"description\":\"kvprov is provisioning the VM\"}}",
              "{\"state\":\"Ready\"}");
    }
    String group = Files.readString(root.resolve("etc/group"));
    assertThat(group)
        .contains("sudo:x:27:azureuser")
        .contains("adm:x:4:\n")
        .doesNotContain("nosuchgroup");
  }

  @Test
  void aTelemetryFailure_neverFailsProvisioning() throws Exception {
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      int exit =
          provision(
              simulator, "", "[telemetry]\nkvp_directory = \"/etc/passwd/not-a-directory\"\n");

      assertThat(exit).isZero();
      assertThat(simulator.reports())
          .extracting(AzureSimulator.Report::body)
          .containsExactly("{\"state\":\"Ready\"}");
    }
    assertThat(stderr.toString(UTF_8).split("the KVP sink failed", -1)).hasSize(2);
    assertThat(root.resolve("var/lib/kvprov/" + VM + ".ready")).exists();
  }
}
