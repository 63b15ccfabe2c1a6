package dev.kvprov.agent.imds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.kvprov.agent.config.AgentConfig;
import dev.kvprov.agent.sim.AzureSimulator;
import dev.kvprov.agent.sim.Scenario;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.VmId;
import dev.kvprov.otel.KvpRecordFormat;
import dev.kvprov.otel.KvpTelemetry;
import dev.kvprov.otel.KvprovAttributes;
import dev.kvprov.otel.KvprovRecord;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The IMDS client against the simulator: real HTTP on loopback, every scenario. */
class ImdsClientTest {
  @TempDir Path dir;
  private PoolFile pool;
  private KvpTelemetry telemetry;
  private AzureSimulator simulator;

  @BeforeEach
  void setUp() {
    pool = PoolFile.open(dir, 1);
    telemetry =
        KvpTelemetry.builder()
            .vmId(new VmId(VmId.UNKNOWN, "test"))
            .kvp(pool)
            .noStderrMirror()
            .stderr(new PrintStream(java.io.OutputStream.nullOutputStream()))
            .environment(Map.of())
            .recordBudget(10_000)
            .build();
  }

  @AfterEach
  void tearDown() {
    telemetry.close();
    if (simulator != null) {
      simulator.close();
    }
  }

  private ImdsClient client(Scenario scenario, Duration read, Duration interval, Duration total) {
    return client(
        AzureSimulator.builder().scenario(scenario).imdsDelayMillis(1500), read, interval, total);
  }

  private ImdsClient client(
      AzureSimulator.Builder sim, Duration read, Duration interval, Duration total) {
    simulator = sim.start();
    return new ImdsClient(
        new AgentConfig.Imds(
            simulator.imdsEndpoint(), Duration.ofSeconds(2), read, interval, total),
        telemetry.tracer());
  }

  private ImdsClient downFor1500Millis() {
    return client(
        Scenario.IMDS_DOWN, Duration.ofSeconds(1), Duration.ofMillis(100), Duration.ofMillis(1500));
  }

  private ImdsClient client(Scenario scenario) {
    return client(scenario, Duration.ofSeconds(5), Duration.ofMillis(50), Duration.ofSeconds(20));
  }

  private List<KvprovRecord> spans() throws Exception {
    return KvpRecordFormat.decode(pool.read().records()).records().stream()
        .map(KvpRecordFormat.DecodedRecord::record)
        .filter(r -> r.kind() == KvprovRecord.Kind.END)
        .toList();
  }

  @Test
  void ok_readsTheInstance_withItsAdminKeysAndPasswordSetting() throws Exception {
    ImdsInstance instance = client(Scenario.OK).fetch();

    assertThat(instance.compute().vmId()).isEqualTo("a1b2c3d4-1111-4222-8333-444455556666");
    assertThat(instance.compute().osProfile().adminUsername()).isEqualTo("azureuser");
    assertThat(instance.compute().osProfile().computerName()).isEqualTo("sim-vm");
    assertThat(instance.compute().osProfile().disablePasswordAuthentication()).isTrue();
    assertThat(instance.compute().publicKeys()).hasSize(2);
    assertThat(spans())
        .extracting(r -> r.name().orElseThrow())
        .containsExactly("imds.parse", "imds.attempt", "imds.fetch");
  }

  @Test
  void theAddresses_areRead_andANetworkSectionOfAnotherShape_failsNothing() throws Exception {
    ImdsInstance instance = client(Scenario.OK).fetch();
    assertThat(instance.privateIpv4()).contains("10.1.2.5");
    assertThat(instance.publicIpv4()).isEmpty();
    simulator.close();

    String json;
    try (java.io.InputStream in = AzureSimulator.class.getResourceAsStream("instance.json")) {
      json = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
    String odd =
        json.substring(0, json.indexOf("\"network\"")) + "\"network\": {\"interface\": 7}}";
    ImdsInstance reshaped =
        client(
                AzureSimulator.builder().instanceJson(odd),
                Duration.ofSeconds(5),
                Duration.ofMillis(50),
                Duration.ofSeconds(20))
            .fetch();
    assertThat(reshaped.compute().name()).isEqualTo("sim-vm");
    assertThat(reshaped.privateIpv4()).isEmpty();
  }

  private static String warning(KvprovRecord r) {
    return r.attributes().get(KvprovAttributes.WARNING);
  }

  @Test
  void flakyImds_isRetried_eachAttemptASpanWithItsStatus() throws Exception {
    ImdsInstance instance = client(Scenario.FLAKY_IMDS).fetch();

    assertThat(instance.compute().name()).isEqualTo("sim-vm");
    assertThat(simulator.imdsRequests()).isEqualTo(4);
    List<KvprovRecord> attempts =
        spans().stream().filter(r -> r.name().orElse("").equals("imds.attempt")).toList();
    assertThat(attempts).hasSize(4);
    assertThat(attempts)
        .extracting(
            r ->
                r.attributes()
                    .get(
                        io.opentelemetry.api.common.AttributeKey.longKey(
                            "http.response.status_code")))
        .containsExactly(500L, 503L, 429L, 200L);
    // Failed, then retried: warnings, not errors; a boot that recovered has no ERROR record.
    assertThat(attempts)
        .extracting(KvprovRecord::level)
        .containsExactly(
            KvprovRecord.Level.WARN,
            KvprovRecord.Level.WARN,
            KvprovRecord.Level.WARN,
            KvprovRecord.Level.INFO);
    assertThat(attempts).extracting(r -> r.status().orElseThrow()).containsOnly("unset");
    assertThat(warning(attempts.get(0)))
        .matches("IMDS answered HTTP 500; trying again in \\d+(\\.\\d)? s");
    assertThat(spans()).noneMatch(r -> r.level() == KvprovRecord.Level.ERROR);
  }

  @Test
  void imdsDown_onlyTheLastAttempt_isAnError_theOnesRetriedAreWarnings() {
    ImdsClient client = downFor1500Millis();

    assertThatThrownBy(client::fetch).isInstanceOf(ImdsException.class);

    List<KvprovRecord> attempts =
        spansUnchecked().stream().filter(r -> r.name().orElse("").equals("imds.attempt")).toList();
    assertThat(attempts).hasSizeGreaterThan(2);
    KvprovRecord last = attempts.get(attempts.size() - 1);
    assertThat(last.level()).isEqualTo(KvprovRecord.Level.ERROR);
    assertThat(last.errorMessage()).contains("IMDS answered HTTP 503");
    assertThat(warning(last)).isNull();
    assertThat(attempts.subList(0, attempts.size() - 1))
        .allSatisfy(
            r -> {
              assertThat(r.level()).isEqualTo(KvprovRecord.Level.WARN);
              assertThat(r.errorMessage()).isEmpty();
              assertThat(warning(r)).startsWith("IMDS answered HTTP 503; trying again in ");
            });
  }

  private List<KvprovRecord> spansUnchecked() {
    try {
      return spans();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void retryAfter_isHonoured() throws Exception {
    long started = System.nanoTime();
    client(Scenario.RETRY_AFTER).fetch();
    Duration took = Duration.ofNanos(System.nanoTime() - started);

    assertThat(simulator.imdsRequests()).isEqualTo(3);
    // Two "Retry-After: 1" answers: at least two seconds of waiting, where the 50 ms backoff
    // alone would have retried almost at once. A lower bound on behaviour, not a benchmark.
    assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(1900));
  }

  @Test
  void aMalformedBody_isRetriedWithBackoff_notInAHotLoop() throws Exception {
    ImdsInstance instance =
        client(
                Scenario.IMDS_MALFORMED,
                Duration.ofSeconds(5),
                Duration.ofMillis(200),
                Duration.ofSeconds(20))
            .fetch();

    assertThat(instance).isNotNull();
    assertThat(simulator.imdsRequests()).isEqualTo(3);
    assertThat(spans())
        .filteredOn(r -> r.name().orElse("").equals("imds.parse"))
        .extracting(KvprovRecord::level, r -> warning(r) != null)
        .containsExactly(
            tuple(KvprovRecord.Level.WARN, true),
            tuple(KvprovRecord.Level.WARN, true),
            tuple(KvprovRecord.Level.INFO, false));
  }

  @Test
  void imdsDown_givesUpAtTheDeadline_sayingWhatWentWrong() {
    ImdsClient client = downFor1500Millis();

    assertThatThrownBy(client::fetch)
        .isInstanceOf(ImdsException.class)
        .hasMessageMatching(
            "no usable answer from IMDS after \\d+ attempt\\(s\\) in \\d+\\.\\d s \\(budget 1.5 s\\).*")
        .hasMessageContaining("last: IMDS answered HTTP 503")
        .satisfies(e -> assertThat(((ImdsException) e).attempts()).isGreaterThan(2));
  }

  @Test
  void aSlowImds_pastTheReadTimeout_isATimeoutPerAttempt_underTheOverallDeadline() {
    ImdsClient client =
        client(
            Scenario.SLOW_IMDS,
            Duration.ofMillis(300),
            Duration.ofMillis(100),
            Duration.ofSeconds(1));

    assertThatThrownBy(client::fetch)
        .isInstanceOf(ImdsException.class)
        .hasMessageContaining("last: IMDS could not be reached: no answer within 0.3 s")
        .hasMessageNotContaining("Exception");
  }

  @Test
  void aBodyThatStallsAfterTheHeaders_isATimeoutPerAttempt_thenTheNextAttemptAnswers()
      throws Exception {
    ImdsClient client =
        client(
            AzureSimulator.builder().scenario(Scenario.IMDS_STALLS).failures(2),
            Duration.ofMillis(400),
            Duration.ofMillis(50),
            Duration.ofSeconds(20));

    ImdsInstance instance = assertTimeoutPreemptively(Duration.ofSeconds(60), client::fetch);

    assertThat(instance.compute().name()).isEqualTo("sim-vm");
    assertThat(simulator.imdsRequests()).isEqualTo(3);
    assertThat(spans())
        .filteredOn(r -> r.name().orElse("").equals("imds.attempt"))
        .extracting(r -> String.valueOf(warning(r)).replaceAll("; trying again in .*", ""))
        .containsExactly(
            "IMDS could not be reached: no complete answer within 0.4 s",
            "IMDS could not be reached: no complete answer within 0.4 s",
            "null");
  }

  @Test
  void aBodyThatNeverEnds_givesUpAtTheDeadline_notAtSystemdsTimeout() {
    ImdsClient client =
        client(
            AzureSimulator.builder().scenario(Scenario.IMDS_TRICKLES).failures(1_000),
            Duration.ofMillis(500),
            Duration.ofMillis(50),
            Duration.ofMillis(1500));

    assertThatThrownBy(() -> assertTimeoutPreemptively(Duration.ofSeconds(60), client::fetch))
        .isInstanceOf(ImdsException.class)
        .hasMessageContaining("(budget 1.5 s)")
        .hasMessageContaining("last: IMDS could not be reached: no complete answer within 0.5 s")
        .satisfies(e -> assertThat(((ImdsException) e).attempts()).isGreaterThanOrEqualTo(2));
  }

  @Test
  void aRetryAfterLongerThanTheBudget_waitsToTheBudgetsEnd_andTriesOnceMore() throws Exception {
    ImdsClient client =
        client(
            AzureSimulator.builder()
                .scenario(Scenario.RETRY_AFTER)
                .retryAfter("100000")
                .failures(1),
            Duration.ofSeconds(5),
            Duration.ofMillis(50),
            Duration.ofSeconds(1));
    long started = System.nanoTime();

    ImdsInstance instance = assertTimeoutPreemptively(Duration.ofSeconds(60), client::fetch);

    assertThat(instance).isNotNull();
    assertThat(simulator.imdsRequests()).isEqualTo(2);
    // It waited for the rest of the budget, not for 100000 s and not for the 50 ms backoff.
    assertThat(Duration.ofNanos(System.nanoTime() - started))
        .isGreaterThanOrEqualTo(Duration.ofMillis(900));
  }

  @Test
  void aServerThatKeepsAskingForMoreTime_isGivenUpOn_sayingHowManyAttemptsAndHowLong() {
    ImdsClient client =
        client(
            AzureSimulator.builder()
                .scenario(Scenario.RETRY_AFTER)
                .retryAfter("301")
                .failures(1_000),
            Duration.ofSeconds(5),
            Duration.ofMillis(50),
            Duration.ofSeconds(1));

    assertThatThrownBy(() -> assertTimeoutPreemptively(Duration.ofSeconds(60), client::fetch))
        .isInstanceOf(ImdsException.class)
        .hasMessageMatching(
            "no usable answer from IMDS after 2 attempt\\(s\\) in \\d+\\.\\d s \\(budget 1 s\\);"
                + " last: IMDS answered HTTP 429");
    assertThat(simulator.imdsRequests()).isEqualTo(2);
  }

  @Test
  void badMetadata_isRejectedWithEveryReason_andNotRetried() {
    String json =
        """
        {"compute": {"vmId": "x", "osProfile": {"adminUsername": "root", "computerName": "bad_host!",
          "disablePasswordAuthentication": false},
          "publicKeys": [{"keyData": "ssh-rsa AAAA\\nssh-rsa BBBB", "path": "relative/keys"}]}}
        """;
    simulator = AzureSimulator.builder().instanceJson(json).start();
    ImdsClient client =
        new ImdsClient(
            new AgentConfig.Imds(
                simulator.imdsEndpoint(),
                Duration.ofSeconds(2),
                Duration.ofSeconds(2),
                Duration.ofMillis(50),
                Duration.ofSeconds(10)),
            telemetry.tracer());

    assertThatThrownBy(client::fetch)
        .isInstanceOf(ImdsException.class)
        .hasMessageContaining("adminUsername: user name 'root' is a system account")
        .hasMessageContaining("computerName: host name 'bad_host!' is not a valid host name")
        .hasMessageContaining("path is not an absolute path: 'relative/keys'")
        // A key that is no key fails the SSH keys step alone, later: not the metadata.
        .hasMessageNotContaining("OpenSSH");
    assertThat(simulator.imdsRequests()).isEqualTo(1);
  }

  @Test
  void rejectedMetadata_endsItsAttemptsSpan_failed() {
    simulator =
        AzureSimulator.builder()
            .instanceJson(
                "{\"compute\": {\"vmId\": \"x\", \"osProfile\": {\"adminUsername\": \"a\","
                    + " \"computerName\": \"bad_host!\"}}}")
            .start();
    java.util.List<io.opentelemetry.sdk.trace.data.SpanData> spans =
        dev.kvprov.agent.SpanRecorder.record(
            tracer -> {
              ImdsClient client =
                  new ImdsClient(
                      new AgentConfig.Imds(
                          simulator.imdsEndpoint(),
                          Duration.ofSeconds(2),
                          Duration.ofSeconds(2),
                          Duration.ofMillis(50),
                          Duration.ofSeconds(10)),
                      tracer);
              assertThatThrownBy(client::fetch).isInstanceOf(ImdsException.class);
            });

    assertThat(spans)
        .filteredOn(s -> s.getName().equals("imds.attempt"))
        .singleElement()
        .satisfies(
            s ->
                assertThat(s.getStatus().getStatusCode())
                    .isEqualTo(io.opentelemetry.api.trace.StatusCode.ERROR));
  }

  /**
   * JSON that is not instance metadata is rejected the one way, whatever is wrong with it: at the
   * first answer, as a refusal (the media do not overrule it), naming where. Only a body that is
   * not JSON at all is asked again.
   */
  @Test
  void jsonOfTheWrongShape_isRejectedAtOnce_asARefusal_whateverTheShape() throws Exception {
    String profile =
        "\"osProfile\": {\"adminUsername\": \"azureuser\", \"computerName\": \"web-01\"";
    Map<String, String> shapes = new java.util.LinkedHashMap<>();
    shapes.put("{}", "the metadata has no compute section");
    shapes.put("null", "the metadata has no compute section");
    shapes.put("[]", "the metadata is not an object");
    shapes.put("\"text\"", "the metadata is not an object");
    shapes.put("{\"compute\": \"x\"}", "compute is not an object");
    shapes.put("{\"compute\": []}", "compute is not an object");
    shapes.put("{\"compute\": {\"osProfile\": []}}", "compute.osProfile is not an object");
    shapes.put("{\"compute\": {\"osProfile\": 7}}", "compute.osProfile is not an object");
    shapes.put("{\"compute\": {}}", "the metadata has no compute.osProfile");
    shapes.put(
        "{\"compute\": {\"osProfile\": {\"adminUsername\": [\"a\"], \"computerName\": \"h\"}}}",
        "compute.osProfile.adminUsername is not a string");
    shapes.put(
        "{\"compute\": {" + profile + ", \"disablePasswordAuthentication\": \"maybe\"}}}",
        "compute.osProfile.disablePasswordAuthentication is not true or false");
    shapes.put(
        "{\"compute\": {" + profile + "}, \"publicKeys\": {\"keyData\": \"k\"}}}",
        "compute.publicKeys is not a list");
    shapes.put(
        "{\"compute\": {" + profile + "}, \"publicKeys\": [\"ssh-ed25519 AAAA\"]}}",
        "compute.publicKeys[0] is not an object");
    for (Map.Entry<String, String> shape : shapes.entrySet()) {
      if (simulator != null) {
        simulator.close();
      }
      simulator = AzureSimulator.builder().instanceJson(shape.getKey()).start();
      ImdsClient client =
          new ImdsClient(
              new AgentConfig.Imds(
                  simulator.imdsEndpoint(),
                  Duration.ofSeconds(2),
                  Duration.ofSeconds(2),
                  Duration.ofMillis(50),
                  Duration.ofSeconds(3)),
              telemetry.tracer());

      assertThatThrownBy(client::fetch)
          .as(shape.getKey())
          .isInstanceOfSatisfying(
              ImdsException.class, e -> assertThat(e.refused()).as(shape.getKey()).isTrue())
          .hasMessage("IMDS metadata rejected: " + shape.getValue());
      assertThat(simulator.imdsRequests()).as(shape.getKey()).isEqualTo(1);
    }
  }

  @Test
  void keysThatAreNoOpenSshLine_doNotRefuseTheMetadata() throws Exception {
    String json =
        """
        {"compute": {"vmId": "x", "osProfile": {"adminUsername": "azureuser",
          "computerName": "web-01"},
          "publicKeys": [
            {"keyData": "ssh-ed25519 AAAAC3NzaC1lZDI1\\r\\nNTE5AAAAIJWinwTTXHx4k8EYR2dTCWR804bXaMPytqRjud+bfvbj\\r\\n",
             "path": "/home/azureuser/.ssh/authorized_keys"},
            {"keyData": "-----BEGIN CERTIFICATE-----\\r\\nMIIB\\r\\n-----END CERTIFICATE-----\\r\\n",
             "path": "/home/azureuser/.ssh/authorized_keys"},
            {"keyData": "garbage", "path": "/home/azureuser/.ssh/authorized_keys"}]}}
        """;
    ImdsClient client =
        client(
            AzureSimulator.builder().instanceJson(json),
            Duration.ofSeconds(2),
            Duration.ofMillis(50),
            Duration.ofSeconds(10));

    ImdsInstance instance = client.fetch();

    assertThat(instance.compute().publicKeys()).hasSize(3);
    assertThat(simulator.imdsRequests()).isEqualTo(1);
  }

  @Test
  void disablePasswordAuthentication_mayBeABooleanOrAString() throws Exception {
    for (String value : new String[] {"false", "\"false\"", "true", "\"true\""}) {
      String json =
          "{\"compute\": {\"vmId\": \"v\", \"osProfile\": {\"adminUsername\": \"azureuser\","
              + " \"computerName\": \"web-01\", \"disablePasswordAuthentication\": "
              + value
              + "}}}";
      if (simulator != null) {
        simulator.close();
      }
      simulator = AzureSimulator.builder().instanceJson(json).start();
      ImdsClient client =
          new ImdsClient(
              new AgentConfig.Imds(
                  simulator.imdsEndpoint(),
                  Duration.ofSeconds(2),
                  Duration.ofSeconds(2),
                  Duration.ofMillis(50),
                  Duration.ofSeconds(5)),
              telemetry.tracer());

      assertThat(client.fetch().compute().osProfile().disablePasswordAuthentication())
          .as(value)
          .isEqualTo(value.contains("true"));
    }
  }

  @Test
  void aConfiguredProxy_isNeverUsed() throws Exception {
    String host = System.getProperty("http.proxyHost");
    String port = System.getProperty("http.proxyPort");
    System.setProperty("http.proxyHost", "127.0.0.1");
    System.setProperty("http.proxyPort", "9");
    try {
      assertThat(client(Scenario.OK).fetch()).isNotNull();
    } finally {
      restore("http.proxyHost", host);
      restore("http.proxyPort", port);
    }
  }

  private static void restore(String key, String value) {
    if (value == null) {
      System.clearProperty(key);
    } else {
      System.setProperty(key, value);
    }
  }
}
