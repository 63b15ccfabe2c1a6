package dev.kvprov.agent;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.agent.sim.AzureSimulator;
import dev.kvprov.agent.sim.Scenario;
import dev.kvprov.otel.KvpRecordFormat;
import dev.kvprov.otel.KvprovRecord;
import dev.kvprov.otel.ProvisioningReport;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The platform's answer checked before any step (a field that cannot be carried out is refused,
 * named, reported, and the root is left as it was), and the Guest Proxy Agent checked when the
 * media ask for it: {@code kvprov provision --root} against the simulator, with a real program as
 * the proxy agent.
 */
class EarlyChecksEndToEndTest {
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

  private void media(String from, String to) throws Exception {
    Path ovf = media.resolve("ovf-env.xml");
    String before = Files.readString(ovf);
    assertThat(before).contains(from);
    Files.writeString(ovf, before.replace(from, to));
  }

  private static String instance(String from, String to) throws Exception {
    try (InputStream in = AzureSimulator.class.getResourceAsStream("instance.json")) {
      String json = new String(in.readAllBytes(), UTF_8);
      assertThat(json).contains(from);
      return json.replace(from, to);
    }
  }

  /** Every file of the root but the pool, with its bytes: what "untouched" compares. */
  private Map<String, String> files() throws Exception {
    Map<String, String> files = new TreeMap<>();
    try (Stream<Path> all = Files.walk(root)) {
      for (Path p : all.filter(Files::isRegularFile).toList()) {
        String name = root.relativize(p).toString();
        // The pool, and the number the report takes in it: telemetry, not the machine's setup.
        if (!name.startsWith("var/lib/hyperv/") && !name.startsWith("var/lib/kvprov/verdict-")) {
          files.put(name, new String(Files.readAllBytes(p), UTF_8));
        }
      }
    }
    return files;
  }

  private static final String REFUSED = "Provisioning data refused";

  static Stream<Arguments> refusals() {
    String password = "<UserPassword>Fixture-S3cret#never-log-me</UserPassword>";
    String longPassword = "L0ng-".repeat(14) + "never-log-me"; // 82 characters
    return Stream.of(
        Arguments.of(
            "a password over the platform's limit",
            password,
            "<UserPassword>" + longPassword + "</UserPassword>",
            null,
            11,
            REFUSED,
            "admin password longer than 72 characters (Azure's limit)"),
        Arguments.of(
            "a password with a line break",
            password,
            "<UserPassword>Fixture-S3cret#&#10;never-log-me</UserPassword>",
            null,
            11,
            REFUSED,
            "admin password has a line break or NUL: no login can type it"),
        Arguments.of(
            "custom data that is not base64",
            "<CustomData>I2Nsb3VkLWNvbmZpZwp3",
            "<CustomData>#cloud-config never-log-me I2Nsb3VkLWNvbmZpZwp3",
            null,
            11,
            REFUSED,
            "custom data (CustomData) is not valid base64"),
        Arguments.of(
            "a user name that is a system group",
            null,
            "\"adminUsername\": \"azureuser\"",
            "\"adminUsername\": \"sudo\"",
            11,
            REFUSED,
            "user name 'sudo' is a system group in /etc/group (gid 27)"),
        Arguments.of(
            "the media's host name with a label over 63 characters (IMDS down)",
            "<HostName>web-01</HostName>",
            "<HostName>" + "h".repeat(64) + ".example</HostName>",
            "IMDS_DOWN",
            11,
            REFUSED,
            "is longer than 63 characters"),
        Arguments.of(
            "IMDS's host name with a label over 63 characters (IMDS answered: its data refused)",
            null,
            "\"computerName\": \"sim-vm\"",
            "\"computerName\": \"" + "h".repeat(64) + "\"",
            11,
            REFUSED,
            "computerName: host name 'hhhh"),
        Arguments.of(
            "IMDS's user name that no account can have",
            null,
            "\"adminUsername\": \"azureuser\"",
            "\"adminUsername\": \"Admin User\"",
            11,
            REFUSED,
            "adminUsername: "));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refusals")
  void aFieldThatCannotBeCarriedOut_isRefusedBeforeAnyChange_namedAndReported(
      String title, String mediaFrom, String from, String to, int exit, String why, String detail)
      throws Exception {
    AzureSimulator.Builder builder = AzureSimulator.builder();
    if (mediaFrom == null) {
      builder.instanceJson(instance(from, to));
    } else {
      media(mediaFrom, from);
      if (to != null) {
        builder.scenario(Scenario.valueOf(to));
      }
    }
    Map<String, String> before = files();
    try (AzureSimulator simulator = builder.start()) {
      assertThat(provision(simulator)).as(stderr.toString(UTF_8)).isEqualTo(exit);

      assertThat(simulator.reports()).hasSize(1);
      assertThat(simulator.reports().get(0).body())
          .contains(why)
          .contains(detail)
          .doesNotContain("never-log-me");
    }
    assertThat(files()).as("the root, but for its pool").isEqualTo(before);
    ProvisioningReport report = TestVm.report(root);
    assertThat(report.isSuccess()).isFalse();
    assertThat(report.get("reason")).contains(why);
    assertThat(report.get("detail").orElseThrow()).contains(detail);
    if (exit == 11) {
      assertThat(report.get("step")).contains("check");
      assertThat(failedSpan("provision.check")).contains(detail);
    }
    assertThat(stderr.toString(UTF_8)).contains(detail).doesNotContain("never-log-me");
    assertThat(new String(Files.readAllBytes(root.resolve("var/lib/hyperv/.kvp_pool_1")), UTF_8))
        .doesNotContain("never-log-me");
  }

  @Test
  void aSystemAccountInPasswd_isRefused_butTheAdminUsersOwnEntry_isNot() throws Exception {
    Files.writeString(
        root.resolve("etc/passwd"),
        "svc:x:998:998::/nonexistent:/usr/sbin/nologin\n",
        UTF_8,
        java.nio.file.StandardOpenOption.APPEND);
    try (AzureSimulator simulator =
        AzureSimulator.builder()
            .instanceJson(
                instance("\"adminUsername\": \"azureuser\"", "\"adminUsername\": \"svc\""))
            .start()) {
      assertThat(provision(simulator)).isEqualTo(11);
    }
    assertThat(TestVm.report(root).get("detail").orElseThrow())
        .contains("user name 'svc' is a system account in /etc/passwd (uid 998)");
  }

  private void append(String file, String line) throws Exception {
    Files.writeString(
        root.resolve(file),
        line,
        UTF_8,
        java.nio.file.StandardOpenOption.APPEND,
        java.nio.file.StandardOpenOption.CREATE);
  }

  /** Where useradd gives each user its own group, a group someone has is refused by name. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("groupsInTheWay")
  void anOrdinaryGroupNamedLikeTheUser_thatSomeoneHas_isRefusedBeforeAnyChange(
      String title, String group, String passwd, String why) throws Exception {
    append("etc/login.defs", "USERGROUPS_ENAB yes\n");
    append("etc/group", group);
    append("etc/passwd", passwd);
    Map<String, String> before = files();
    try (AzureSimulator simulator =
        AzureSimulator.builder()
            .instanceJson(
                instance("\"adminUsername\": \"azureuser\"", "\"adminUsername\": \"devs\"")
                    .replace("/home/azureuser/", "/home/devs/"))
            .start()) {
      assertThat(provision(simulator)).as(stderr.toString(UTF_8)).isEqualTo(11);
    }
    assertThat(files()).as("the root, but for its pool").isEqualTo(before);
    assertThat(TestVm.report(root).get("step")).contains("check");
    assertThat(TestVm.report(root).get("detail").orElseThrow())
        .isEqualTo(
            "user name 'devs' is taken by a group in /etc/group ("
                + why
                + "), and useradd gives each new user a group of its own name"
                + " (USERGROUPS_ENAB)");
  }

  static Stream<Arguments> groupsInTheWay() {
    return Stream.of(
        Arguments.of(
            "a group with members",
            "devs:x:1500:alice\n",
            "alice:x:1501:1501::/home/alice:/bin/sh\n",
            "it has members: alice"),
        Arguments.of(
            "another user's primary group",
            "devs:x:1500:\n",
            "bob:x:1502:1500::/home/bob:/bin/sh\n",
            "it is bob's primary group"));
  }

  /**
   * Without USERGROUPS_ENAB (shadow-utils reads its absence as no) useradd puts the user in the
   * default group: the same group is no clash, and the real useradd creates the user.
   */
  @Test
  void aGroupNamedLikeTheUser_withoutUserGroups_isNoClash() throws Exception {
    append("etc/group", "devs:x:1500:alice\n");
    append("etc/passwd", "alice:x:1501:1501::/home/alice:/bin/sh\n");
    Files.deleteIfExists(root.resolve("etc/login.defs"));
    try (AzureSimulator simulator =
        AzureSimulator.builder()
            .instanceJson(
                instance("\"adminUsername\": \"azureuser\"", "\"adminUsername\": \"devs\"")
                    .replace("/home/azureuser/", "/home/devs/"))
            .start()) {
      assertThat(provision(simulator)).as(stderr.toString(UTF_8)).isZero();
    }
    assertThat(Files.readAllLines(root.resolve("etc/passwd"))).anyMatch(l -> l.startsWith("devs:"));
    assertThat(Files.readAllLines(root.resolve("etc/group"))).contains("devs:x:1500:alice");
  }

  @Test
  void theAdminUsersOwnEntry_fromAnEarlierRun_isNoClash() throws Exception {
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      assertThat(provision(simulator)).as(stderr.toString(UTF_8)).isZero();
      // The markers gone (kvprov clean): the next boot provisions again over its own user.
      try (Stream<Path> markers = Files.list(root.resolve("var/lib/kvprov"))) {
        for (Path marker : markers.filter(p -> p.toString().endsWith(".provisioned")).toList()) {
          Files.delete(marker);
        }
      }
      Files.deleteIfExists(root.resolve("var/lib/kvprov/" + TestVm.ID + ".ready"));

      assertThat(provision(simulator)).as(stderr.toString(UTF_8)).isZero();
      assertThat(simulator.reports()).hasSize(2);
    }
    assertThat(TestVm.report(root).isSuccess()).isTrue();
  }

  /**
   * A hand-run {@code --only ssh-keys} sets no password and keeps no custom data (only a whole run
   * does): neither is refused for it.
   */
  @Test
  void chosenSteps_areNotRefused_forFieldsTheyNeverTouch() throws Exception {
    media(
        "<UserPassword>Fixture-S3cret#never-log-me</UserPassword>",
        "<UserPassword>" + "L0ng-".repeat(14) + "never-log-me</UserPassword>");
    media("<CustomData>I2Nsb3VkLWNvbmZpZwp3", "<CustomData>#cloud-config I2Nsb3VkLWNvbmZpZwp3");
    Files.createDirectories(root.resolve("home/azureuser"));
    append("etc/passwd", "azureuser:x:1000:1000::/home/azureuser:/bin/sh\n");
    append("etc/group", "azureuser:x:1000:\n");
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      ConfigOptions options = new ConfigOptions();
      options.root = root;
      options.config = TestVm.simulatorConfig(dir, simulator);
      int exit =
          ProvisionCommand.run(
              options,
              media,
              java.util.EnumSet.of(dev.kvprov.agent.provision.steps.Step.SSH_KEYS),
              new PrintStream(stderr, true, UTF_8));

      assertThat(exit).as(stderr.toString(UTF_8)).isZero();
    }
    assertThat(root.resolve("home/azureuser/.ssh/authorized_keys")).isNotEmptyFile();
    assertThat(stderr.toString(UTF_8)).doesNotContain("never-log-me");
  }

  @Test
  void aColonInThePassword_isCarried_kvprovHashesItItself() throws Exception {
    media(
        "<UserPassword>Fixture-S3cret#never-log-me</UserPassword>",
        "<UserPassword>Fixture:S3cret#never-log-me</UserPassword>");
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      assertThat(provision(simulator)).as(stderr.toString(UTF_8)).isZero();
    }
    assertThat(Files.readAllLines(root.resolve("etc/shadow")))
        .anyMatch(l -> l.startsWith("azureuser:$6$"));
  }

  private void askForTheProxyAgent() throws Exception {
    media(
        "<PreprovisionedVm>false</PreprovisionedVm>",
        "<PreprovisionedVm>false</PreprovisionedVm>\n"
            + "      <ProvisionGuestProxyAgent>true</ProvisionGuestProxyAgent>");
  }

  /** A real program standing in for the proxy agent, in the root's /usr/bin. */
  private Path proxyAgent(String script) throws Exception {
    Path program = Files.createDirectories(root.resolve("usr/bin")).resolve("azure-proxy-agent");
    Files.writeString(program, "#!/bin/sh\n" + script);
    Files.setPosixFilePermissions(program, PosixFilePermissions.fromString("rwxr-xr-x"));
    return program;
  }

  @Test
  void theProxyAgentAskedFor_andReady_isInTheReport_andItsSpan() throws Exception {
    askForTheProxyAgent();
    Path args = dir.resolve("args");
    proxyAgent("echo \"$@\" > " + args + "\nexit 0\n");
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      assertThat(provision(simulator)).as(stderr.toString(UTF_8)).isZero();
      assertThat(simulator.reports())
          .extracting(AzureSimulator.Report::body)
          .containsExactly("{\"state\":\"Ready\"}");
    }
    assertThat(Files.readString(args)).isEqualTo("--status --wait 120\n");
    assertThat(TestVm.report(root).isSuccess()).isTrue();
    assertThat(TestVm.report(root).get("gpa")).contains("ready");
    assertThat(span("provision.gpa")).isNotNull();
  }

  @Test
  void theProxyAgentAskedFor_andFailing_failsTheRun_withItsAnswer_beforeImdsIsAsked()
      throws Exception {
    askForTheProxyAgent();
    proxyAgent("echo 'key latch not acquired' >&2\nexit 3\n");
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      assertThat(provision(simulator)).as(stderr.toString(UTF_8)).isEqualTo(19);
      assertThat(simulator.reports()).hasSize(1);
      assertThat(simulator.reports().get(0).body())
          .contains("Guest Proxy Agent status failed")
          .contains("the Guest Proxy Agent did not report ready");
      // The proxy sits between the VM and IMDS: asked first, as cloud-init asks it.
      assertThat(simulator.imdsRequests()).isZero();
    }
    ProvisioningReport report = TestVm.report(root);
    assertThat(report.get("reason")).contains("Guest Proxy Agent status failed");
    assertThat(report.get("gpa")).contains("failed");
    assertThat(report.get("detail").orElseThrow())
        .isEqualTo(
            "the Guest Proxy Agent did not report ready: azure-proxy-agent --status exited 3:"
                + " key latch not acquired");
    assertThat(failedSpan("provision.gpa")).contains("exited 3");
    assertThat(Files.readString(root.resolve("etc/passwd"))).doesNotContain("azureuser");
  }

  @Test
  void theProxyAgentAskedFor_butNotInstalled_failsTheRun_sayingSo() throws Exception {
    askForTheProxyAgent();
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      assertThat(provision(simulator)).isEqualTo(19);
      assertThat(simulator.imdsRequests()).isZero();
    }
    assertThat(TestVm.report(root).get("gpa")).contains("missing");
    assertThat(TestVm.report(root).get("reason")).contains("Guest Proxy Agent not found");
    assertThat(TestVm.report(root).get("detail").orElseThrow())
        .contains("azure-proxy-agent is not installed");
  }

  @Test
  void theProxyAgentNotAskedFor_isNeverRun_andTheReportSaysNothingOfIt() throws Exception {
    Path ran = dir.resolve("ran");
    proxyAgent("touch " + ran + "\nexit 1\n");
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      assertThat(provision(simulator)).as(stderr.toString(UTF_8)).isZero();
    }
    assertThat(ran).doesNotExist();
    assertThat(TestVm.report(root).get("gpa")).isEmpty();
  }

  private KvprovRecord span(String name) throws Exception {
    return KvpRecordFormat.decode(TestVm.pool(root)).records().stream()
        .map(KvpRecordFormat.DecodedRecord::record)
        .filter(r -> r.kind() == KvprovRecord.Kind.END && r.name().orElse("").equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no span " + name));
  }

  /** The error status of the span {@code name}. */
  private String failedSpan(String name) throws Exception {
    KvprovRecord span = span(name);
    assertThat(span.status()).contains("error");
    return span.errorMessage().orElseThrow();
  }
}
