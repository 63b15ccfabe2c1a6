package dev.kvprov.agent.wireserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.xml.XmlMapper;
import dev.kvprov.agent.config.AgentConfig;
import dev.kvprov.agent.sim.AzureSimulator;
import dev.kvprov.agent.sim.Scenario;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.VmId;
import dev.kvprov.otel.KvpRecordFormat;
import dev.kvprov.otel.KvpTelemetry;
import dev.kvprov.otel.KvprovAttributes;
import dev.kvprov.otel.KvprovRecord;
import io.opentelemetry.api.OpenTelemetry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Health reports to the simulated wireserver, in both protocols and through its failures. */
class WireserverClientTest {
  private AzureSimulator simulator;

  @AfterEach
  void tearDown() {
    if (simulator != null) {
      simulator.close();
    }
  }

  private WireserverClient client(AzureSimulator.Builder sim, String protocol, Duration total) {
    simulator = sim.start();
    return new WireserverClient(
        new AgentConfig.Wireserver(
            simulator.wireserverEndpoint(),
            protocol,
            Duration.ofSeconds(2),
            Duration.ofSeconds(2),
            total),
        "kvprov v0.1.0",
        OpenTelemetry.noop().getTracer("t"));
  }

  @Test
  void certificates_areFetchedFromTheUrlTheGoalStateNames_forTheTransportCertificate()
      throws Exception {
    WireserverClient client = client(AzureSimulator.builder(), "json", Duration.ofSeconds(10));
    String transport = dev.kvprov.agent.certs.TransportKey.create().certificateHeader();

    String document =
        new String(client.certificates(transport, "DES_EDE3_CBC"), StandardCharsets.UTF_8);

    assertThat(document)
        .contains("<Format>Pkcs7BlobWithPfxContents</Format>")
        .containsPattern("<Data>[A-Za-z0-9+/=\\r\\n]+</Data>");
    assertThatThrownBy(() -> client.certificates(transport, "RC4"))
        .isInstanceOf(WireserverException.class)
        .hasMessage(
            "the wireserver refused the certificates request after 1 attempt(s): certificates:"
                + " HTTP 400, which retrying will not change");
  }

  @Test
  void certificates_longerThanOneMebibyte_areRefused() throws Exception {
    com.sun.net.httpserver.HttpServer server =
        com.sun.net.httpserver.HttpServer.create(
            new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
    byte[] goalState =
        ("<GoalState><Container><RoleInstanceList><RoleInstance><Configuration><Certificates>"
                + "http://168.63.129.16:80/machine/c/i?comp=certificates&amp;incarnation=1"
                + "</Certificates></Configuration></RoleInstance></RoleInstanceList></Container>"
                + "</GoalState>")
            .getBytes(StandardCharsets.UTF_8);
    server.createContext(
        "/machine/",
        exchange -> {
          boolean certificates = exchange.getRequestURI().getPath().equals("/machine/c/i");
          byte[] body = certificates ? new byte[(1 << 20) + 1] : goalState;
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
    try {
      WireserverClient client =
          new WireserverClient(
              new AgentConfig.Wireserver(
                  java.net.URI.create("http://127.0.0.1:" + server.getAddress().getPort()),
                  "json",
                  Duration.ofSeconds(2),
                  Duration.ofSeconds(2),
                  Duration.ofSeconds(5)),
              "kvprov v0.1.0",
              OpenTelemetry.noop().getTracer("t"));

      assertThatThrownBy(() -> client.certificates("MIIB", "DES_EDE3_CBC"))
          .isInstanceOf(WireserverException.class)
          .hasMessage("the goal state's certificates document is larger than 1048576 bytes");
    } finally {
      server.stop(0);
    }
  }

  @Test
  void aGoalStateWithoutCertificates_saysSo() {
    XmlMapper xml = new XmlMapper();
    assertThatThrownBy(
            () ->
                WireserverClient.GoalState.certificatesUrl(
                    "<GoalState><Container><RoleInstanceList><RoleInstance><InstanceId>i"
                        + "</InstanceId></RoleInstance></RoleInstanceList></Container></GoalState>",
                    xml))
        .hasMessage("the goal state names no Certificates document");
  }

  @Test
  void json_ready_andFailed_withTheReportAsDescription() throws Exception {
    WireserverClient client = client(AzureSimulator.builder(), "json", Duration.ofSeconds(10));

    client.report(Health.ready());
    client.report(Health.failed("result=error|reason=User creation failed"));

    assertThat(simulator.reports())
        .extracting(AzureSimulator.Report::protocol)
        .containsExactly("json", "json");
    JsonNode ready = new ObjectMapper().readTree(simulator.reports().get(0).body());
    assertThat(ready.toString()).isEqualTo("{\"state\":\"Ready\"}");
    JsonNode failed = new ObjectMapper().readTree(simulator.reports().get(1).body());
    assertThat(failed.path("state").asText()).isEqualTo("NotReady");
    assertThat(failed.path("details").path("subStatus").asText()).isEqualTo("ProvisioningFailed");
    assertThat(failed.path("details").path("description").asText())
        .isEqualTo("result=error|reason=User creation failed");
  }

  @Test
  void xml_readsTheGoalState_andNamesItsContainerAndInstance() throws Exception {
    WireserverClient client = client(AzureSimulator.builder(), "xml", Duration.ofSeconds(10));

    client.report(Health.inProgress("setting the host name <&> \"now\""));

    assertThat(simulator.reports()).hasSize(1);
    String body = simulator.reports().get(0).body();
    assertThat(body)
        .matches(
            "(?s)<\\?xml version=['\"]1\\.0['\"] encoding=['\"]utf-8['\"]\\?><Health xmlns:xsi=.*")
        .contains("xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\"");
    JsonNode health = new XmlMapper().readTree(body);
    assertThat(health.path("GoalStateIncarnation").asText()).isEqualTo("1");
    assertThat(health.path("Container").path("ContainerId").asText())
        .isEqualTo("5e1f0c2a-7d3b-4e6a-9b8c-1d2e3f4a5b6c");
    JsonNode role = health.path("Container").path("RoleInstanceList").path("Role");
    assertThat(role.path("InstanceId").asText())
        .isEqualTo("a1b2c3d411114222833344445555666.sim-vm");
    assertThat(role.path("Health").path("State").asText()).isEqualTo("NotReady");
    assertThat(role.path("Health").path("Details").path("SubStatus").asText())
        .isEqualTo("Provisioning");
    assertThat(role.path("Health").path("Details").path("Description").asText())
        .isEqualTo("setting the host name <&> \"now\"");
  }

  @Test
  void aJson404_fallsBackToXml_andStaysThere() throws Exception {
    WireserverClient client =
        client(AzureSimulator.builder().jsonHealth(false), "json", Duration.ofSeconds(10));

    client.report(Health.ready());
    client.report(Health.ready());

    assertThat(simulator.reports())
        .extracting(AzureSimulator.Report::protocol)
        .containsExactly("xml", "xml");
  }

  @Test
  void aFlakyWireserver_isRetriedUntilItAccepts() throws Exception {
    WireserverClient client =
        client(
            AzureSimulator.builder().scenario(Scenario.WIRESERVER_FLAKY).failures(2),
            "json",
            Duration.ofSeconds(30));

    client.report(Health.ready());

    assertThat(simulator.reports()).hasSize(1);
  }

  @Test
  void aFlakyWireserver_theAttemptsRetried_areWarnings_noneAnError(@TempDir Path dir)
      throws Exception {
    PoolFile pool = PoolFile.open(dir, 1);
    try (KvpTelemetry telemetry =
        KvpTelemetry.builder()
            .vmId(new VmId(VmId.UNKNOWN, "test"))
            .kvp(pool)
            .noStderrMirror()
            .environment(Map.of())
            .build()) {
      simulator = AzureSimulator.builder().scenario(Scenario.WIRESERVER_FLAKY).failures(2).start();
      new WireserverClient(
              new AgentConfig.Wireserver(
                  simulator.wireserverEndpoint(),
                  "json",
                  Duration.ofSeconds(2),
                  Duration.ofSeconds(2),
                  Duration.ofSeconds(30)),
              "kvprov v0.1.0",
              telemetry.tracer())
          .report(Health.ready());
    }

    List<KvprovRecord> ends =
        KvpRecordFormat.decode(pool.read().records()).records().stream()
            .map(KvpRecordFormat.DecodedRecord::record)
            .filter(r -> r.kind() == KvprovRecord.Kind.END)
            .toList();
    assertThat(ends)
        .filteredOn(r -> r.name().orElse("").equals("wireserver.attempt"))
        .extracting(
            KvprovRecord::level,
            r ->
                String.valueOf(r.attributes().get(KvprovAttributes.WARNING))
                    .replaceAll("in \\d+(\\.\\d)? s$", "in N s"))
        .containsExactly(
            tuple(KvprovRecord.Level.WARN, "json health: HTTP 503; trying again in N s"),
            tuple(KvprovRecord.Level.WARN, "json health: HTTP 503; trying again in N s"),
            tuple(KvprovRecord.Level.INFO, "null"));
    assertThat(ends).noneMatch(r -> r.level() == KvprovRecord.Level.ERROR);
  }

  @Test
  void aDownWireserver_isGivenUpOnAtTheDeadline_sayingWhy() {
    WireserverClient client =
        client(
            AzureSimulator.builder().scenario(Scenario.WIRESERVER_DOWN),
            "json",
            Duration.ofMillis(1500));

    assertThatThrownBy(() -> client.report(Health.ready()))
        .isInstanceOf(WireserverException.class)
        .hasMessageMatching(
            "the health report did not reach the wireserver after \\d+ attempt\\(s\\)"
                + " in \\d+\\.\\d s \\(budget 1.5 s\\); last: json health: HTTP 503")
        .hasMessageContaining("last: json health: HTTP 503");
  }

  @Test
  void aRefusal_isFinal_notRetriedForTheWholeBudget() {
    WireserverClient client =
        client(
            AzureSimulator.builder().scenario(Scenario.WIRESERVER_FORBIDS),
            "json",
            Duration.ofMinutes(20));

    long started = System.nanoTime();
    assertThatThrownBy(() -> client.report(Health.failed("x")))
        .isInstanceOf(WireserverException.class)
        .hasMessage(
            "the wireserver refused the health report after 1 attempt(s): json health: HTTP 403,"
                + " which retrying will not change");
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMinutes(1));
  }

  @Test
  void aHealthEndpointThatStallsAfterTheHeaders_isGivenUpOnAtTheDeadline() {
    WireserverClient client =
        client(
            AzureSimulator.builder().scenario(Scenario.WIRESERVER_STALLS).failures(1_000),
            "json",
            Duration.ofMillis(1500));

    assertThatThrownBy(
            () ->
                assertTimeoutPreemptively(
                    Duration.ofSeconds(60), () -> client.report(Health.ready())))
        .isInstanceOf(WireserverException.class)
        .hasMessageContaining("(budget 1.5 s)")
        .hasMessageContaining("last: json health: no complete answer within 1.5 s");
    assertThat(simulator.reports()).isEmpty();
  }

  @Test
  void aHealthEndpointThatStalledOnce_getsTheReportOnTheNextAttempt() throws Exception {
    WireserverClient client =
        client(
            AzureSimulator.builder().scenario(Scenario.WIRESERVER_STALLS).failures(1),
            "json",
            Duration.ofSeconds(30));

    assertTimeoutPreemptively(Duration.ofSeconds(60), () -> client.report(Health.ready()));

    assertThat(simulator.reports()).hasSize(1);
  }

  @Test
  void aLongDescription_isCutToWhatThePlatformTakes() {
    assertThat(Health.failed("x".repeat(5000)).description()).hasSize(3686);
  }

  /** The JSON report's body, as the node tree wrote it before: byte for byte, escapes and all. */
  @Test
  void theJsonHealthReport_isTheLineANodeTreeWrote() {
    for (Health health :
        List.of(
            Health.ready(),
            Health.inProgress("waiting"),
            Health.failed("a \"quoted\" path\\ with\ttab, caf\u00e9, \u2603 and \u0001"),
            new Health("NotReady", "ProvisioningFailed", null))) {
      com.fasterxml.jackson.databind.node.ObjectNode tree =
          com.fasterxml.jackson.databind.node.JsonNodeFactory.instance
              .objectNode()
              .put("state", health.state());
      if (health.subStatus() != null) {
        tree.putObject("details")
            .put("subStatus", health.subStatus())
            .put("description", health.description());
      }

      assertThat(WireserverClient.jsonBody(health)).isEqualTo(tree.toString());
    }
  }
}
