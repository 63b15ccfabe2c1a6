package dev.kvprov.inspect.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import dev.kvprov.inspect.CliRun;
import dev.kvprov.inspect.KvprovSpanRecords;
import dev.kvprov.inspect.OtlpTraceReceiver;
import dev.kvprov.inspect.QuietTelemetry;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.VmId;
import dev.kvprov.otel.KvpTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.Status;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExportCommandTest {
  private static final String VM_ID = "00840e55-9be2-d441-a716-446655440000";
  private static final Instant T0 = Instant.parse("2026-11-22T06:08:14.391Z");

  @TempDir Path dir;

  /** The ids our own agent gave its spans, by name. */
  private record Original(String traceId, String spanId) {}

  /**
   * A provisioning run written by our own exporter: nested spans, one failed, one never ended (only
   * its start record is on file, as when the agent is killed mid-step).
   */
  private Map<String, Original> provision(PoolFile pool) {
    Map<String, Original> ids = new LinkedHashMap<>();
    try (KvpTelemetry telemetry = QuietTelemetry.into(pool).vmId(new VmId(VM_ID, "test")).build()) {
      Tracer tracer = telemetry.tracer();
      Span root = tracer.spanBuilder("provision").setStartTimestamp(T0).startSpan();
      try (var scope = root.makeCurrent()) {
        Span imds =
            tracer
                .spanBuilder("imds.fetch")
                .setAttribute("attempts", 2L)
                .setStartTimestamp(T0.plusMillis(100))
                .startSpan();
        imds.end(T0.plusMillis(2100));
        Span user =
            tracer
                .spanBuilder("user.create")
                .setAttribute("user", "azureuser")
                .setStartTimestamp(T0.plusMillis(2200))
                .startSpan();
        user.setStatus(StatusCode.ERROR, "useradd exited 9");
        user.end(T0.plusMillis(2700));
        Span hangs = tracer.spanBuilder("hangs").setStartTimestamp(T0.plusMillis(2800)).startSpan();
        for (var e : Map.of("imds.fetch", imds, "user.create", user, "hangs", hangs).entrySet()) {
          ids.put(
              e.getKey(),
              new Original(
                  e.getValue().getSpanContext().getTraceId(),
                  e.getValue().getSpanContext().getSpanId()));
        }
      }
      root.end(T0.plusMillis(3000));
      ids.put(
          "provision",
          new Original(root.getSpanContext().getTraceId(), root.getSpanContext().getSpanId()));
    }
    return ids;
  }

  /** One cloud-init event record, as cloud-init 26.1 writes it (the VM id in the key). */
  private static KvpRecord cloudInit(
      long bootEpoch, String type, String name, Instant ts, String result) {
    return new KvpRecord(
        "CLOUD_INIT|" + bootEpoch + "|" + type + "|" + name + "|" + VM_ID + "|" + UUID.randomUUID(),
        "{\"name\":\""
            + name
            + "\",\"type\":\""
            + type
            + "\",\"ts\":\""
            + ts.toString().replace("Z", "+00:00")
            + "\""
            + (result == null ? "" : ",\"result\":\"" + result + "\"")
            + ",\"msg\":\""
            + (result == null ? "running " : "finished ")
            + name
            + "\"}");
  }

  private static Map<String, io.opentelemetry.proto.trace.v1.Span> byName(
      List<ResourceSpans> resources) {
    Map<String, io.opentelemetry.proto.trace.v1.Span> spans = new LinkedHashMap<>();
    resources.stream()
        .flatMap(r -> r.getScopeSpansList().stream())
        .flatMap(s -> s.getSpansList().stream())
        .forEach(s -> spans.put(s.getName(), s));
    return spans;
  }

  private static List<ResourceSpans> received(OtlpTraceReceiver receiver) {
    return receiver.requests().stream().flatMap(r -> r.getResourceSpansList().stream()).toList();
  }

  private static String hex(ByteString bytes) {
    return HexFormat.of().formatHex(bytes.toByteArray());
  }

  private static String attribute(List<KeyValue> attributes, String key) {
    return attributes.stream()
        .filter(a -> a.getKey().equals(key))
        .map(
            a ->
                a.getValue().hasBoolValue()
                    ? "" + a.getValue().getBoolValue()
                    : a.getValue().getStringValue())
        .findFirst()
        .orElse(null);
  }

  /** The reason in the one line of an export that failed. */
  private static String reason(CliRun export, String url) {
    assertThat(export.err().lines())
        .singleElement()
        .asString()
        .startsWith("kvp export: " + url + ": ");
    return export.err().strip().substring(("kvp export: " + url + ": ").length());
  }

  private static long nanos(Instant t) {
    return t.getEpochSecond() * 1_000_000_000L + t.getNano();
  }

  @Test
  void otlp_sendsOurSpans_withTheAgentsOwnIds_parentsStatusAndTimes() throws Exception {
    PoolFile pool = PoolFile.open(dir, 1);
    Map<String, Original> original = provision(pool);

    try (OtlpTraceReceiver receiver = OtlpTraceReceiver.answering(200)) {
      CliRun export = CliRun.of("export", "--dir", dir.toString(), "--otlp", receiver.url());
      assertThat(export.exit()).isZero();

      assertThat(export.err().strip())
          .isEqualTo("exported 4 spans (kvprov: 4) to " + receiver.url());
      List<ResourceSpans> resources = received(receiver);
      assertThat(resources).hasSize(1);
      Resource resource = resources.get(0).getResource();
      assertThat(attribute(resource.getAttributesList(), "service.name")).isEqualTo("kvprov");
      assertThat(attribute(resource.getAttributesList(), "host.id")).isEqualTo(VM_ID);
      assertThat(attribute(resource.getAttributesList(), "kvp.pool"))
          .isEqualTo(dir.resolve(".kvp_pool_1").toString());

      Map<String, io.opentelemetry.proto.trace.v1.Span> spans = byName(resources);
      assertThat(spans).containsOnlyKeys(original.keySet());
      String rootId = original.get("provision").spanId();
      for (var e : original.entrySet()) {
        io.opentelemetry.proto.trace.v1.Span span = spans.get(e.getKey());
        assertThat(hex(span.getTraceId())).isEqualTo(e.getValue().traceId());
        assertThat(hex(span.getSpanId())).isEqualTo(e.getValue().spanId());
        assertThat(hex(span.getParentSpanId()))
            .isEqualTo(e.getKey().equals("provision") ? "" : rootId);
      }

      io.opentelemetry.proto.trace.v1.Span imds = spans.get("imds.fetch");
      assertThat(imds.getStartTimeUnixNano()).isEqualTo(nanos(T0.plusMillis(100)));
      assertThat(imds.getEndTimeUnixNano()).isEqualTo(nanos(T0.plusMillis(2100)));
      assertThat(imds.getStatus().getCode()).isEqualTo(Status.StatusCode.STATUS_CODE_UNSET);
      assertThat(imds.getAttributesList())
          .anySatisfy(
              a -> {
                assertThat(a.getKey()).isEqualTo("attempts");
                assertThat(a.getValue().getIntValue()).isEqualTo(2);
              });

      io.opentelemetry.proto.trace.v1.Span user = spans.get("user.create");
      assertThat(user.getStatus().getCode()).isEqualTo(Status.StatusCode.STATUS_CODE_ERROR);
      assertThat(user.getStatus().getMessage()).isEqualTo("useradd exited 9");
      assertThat(attribute(user.getAttributesList(), "user")).isEqualTo("azureuser");

      // Never finished: exported, not dropped; it ran at least until the pool's last time.
      io.opentelemetry.proto.trace.v1.Span hangs = spans.get("hangs");
      assertThat(hangs.getStartTimeUnixNano()).isEqualTo(nanos(T0.plusMillis(2800)));
      assertThat(hangs.getEndTimeUnixNano()).isEqualTo(nanos(T0.plusMillis(3000)));
      assertThat(hangs.getStatus().getCode()).isEqualTo(Status.StatusCode.STATUS_CODE_ERROR);
      assertThat(hangs.getStatus().getMessage()).isEqualTo("never finished");
      assertThat(attribute(hangs.getAttributesList(), "kvp.unfinished")).isEqualTo("true");
      assertThat(attribute(spans.get("provision").getAttributesList(), "kvp.unfinished")).isNull();
    }
  }

  @Test
  void otlp_theCloudInitFixture_getsTheSameIdsOnEveryExport() throws Exception {
    String pool = KvpCommandTest.CLOUD_INIT_POOL.toString();
    try (OtlpTraceReceiver receiver = OtlpTraceReceiver.answering(200)) {
      CliRun export = CliRun.of("export", "--file", pool, "--otlp", receiver.url());
      assertThat(export.exit()).isZero();
      export = CliRun.of("export", "--file", pool, "--otlp", receiver.url());
      assertThat(export.exit()).isZero();

      assertThat(receiver.requests()).hasSize(2);
      Map<String, io.opentelemetry.proto.trace.v1.Span> first =
          byName(receiver.requests().get(0).getResourceSpansList());
      Map<String, io.opentelemetry.proto.trace.v1.Span> second =
          byName(receiver.requests().get(1).getResourceSpansList());
      assertThat(first).containsOnlyKeys("azure-ds/crawl_metadata", "azure-ds/failing_step");
      assertThat(second).isEqualTo(first);

      io.opentelemetry.proto.trace.v1.Span crawl = first.get("azure-ds/crawl_metadata");
      io.opentelemetry.proto.trace.v1.Span failing = first.get("azure-ds/failing_step");
      // One boot, one writer: one trace; two root spans with distinct ids.
      assertThat(failing.getTraceId()).isEqualTo(crawl.getTraceId());
      assertThat(failing.getSpanId()).isNotEqualTo(crawl.getSpanId());
      assertThat(crawl.getParentSpanId()).isEmpty();
      assertThat(crawl.getStatus().getCode()).isEqualTo(Status.StatusCode.STATUS_CODE_UNSET);
      assertThat(failing.getStatus().getCode()).isEqualTo(Status.StatusCode.STATUS_CODE_ERROR);
      assertThat(failing.getStatus().getMessage()).isEqualTo("will raise");
      assertThat(crawl.getEndTimeUnixNano()).isGreaterThan(crawl.getStartTimeUnixNano());
      assertThat(
              attribute(
                  receiver.requests().get(0).getResourceSpans(0).getResource().getAttributesList(),
                  "service.name"))
          .isEqualTo("cloud-init");
      assertThat(export.err().strip())
          .isEqualTo("exported 2 spans (cloud-init: 2) to " + receiver.url());
    }
  }

  @Test
  void otlp_cloudInitSpans_nestByName_oneTracePerBoot() throws Exception {
    long bootA = 1795322355;
    Instant a = Instant.ofEpochSecond(bootA);
    long bootB = bootA + 3600;
    Instant b = Instant.ofEpochSecond(bootB);
    PoolFile pool = PoolFile.open(dir, 1);
    pool.append(
        List.of(
            cloudInit(bootA, "start", "init-local", a.plusMillis(5000), null),
            cloudInit(bootA, "start", "init-local/azure-ds", a.plusMillis(6000), null),
            cloudInit(bootA, "finish", "init-local/azure-ds", a.plusMillis(7000), "SUCCESS"),
            cloudInit(bootA, "finish", "init-local", a.plusMillis(8000), "SUCCESS"),
            // a later stage of the same boot: its boot epoch is a second off
            cloudInit(bootA + 1, "start", "init-network", a.plusMillis(10000), null),
            cloudInit(bootA + 1, "finish", "init-network", a.plusMillis(12000), "FAIL"),
            // the next boot, its records left in the pool
            cloudInit(bootB, "start", "modules-final", b.plusMillis(5000), null)));

    try (OtlpTraceReceiver receiver = OtlpTraceReceiver.answering(200)) {
      CliRun export = CliRun.of("export", "--dir", dir.toString(), "--otlp", receiver.url());
      assertThat(export.exit()).isZero();

      List<ResourceSpans> resources = received(receiver);
      assertThat(attribute(resources.get(0).getResource().getAttributesList(), "host.id"))
          .isEqualTo(VM_ID);
      Map<String, io.opentelemetry.proto.trace.v1.Span> spans = byName(resources);
      var local = spans.get("init-local");
      var azureDs = spans.get("init-local/azure-ds");
      var network = spans.get("init-network");
      var modulesFinal = spans.get("modules-final");
      assertThat(azureDs.getParentSpanId()).isEqualTo(local.getSpanId());
      assertThat(azureDs.getTraceId()).isEqualTo(local.getTraceId());
      assertThat(local.getParentSpanId()).isEmpty();
      assertThat(network.getTraceId()).isEqualTo(local.getTraceId());
      assertThat(network.getStatus().getCode()).isEqualTo(Status.StatusCode.STATUS_CODE_ERROR);
      assertThat(modulesFinal.getTraceId()).isNotEqualTo(local.getTraceId());
      assertThat(azureDs.getStartTimeUnixNano()).isEqualTo(nanos(a.plusMillis(6000)));
      assertThat(azureDs.getEndTimeUnixNano()).isEqualTo(nanos(a.plusMillis(7000)));
      assertThat(modulesFinal.getStatus().getMessage()).isEqualTo("never finished");
      assertThat(modulesFinal.getEndTimeUnixNano()).isEqualTo(nanos(b.plusMillis(5000)));
    }
  }

  @Test
  void otlpJson_writesWhatTheCollectorsFileReceiverReads_everyWriterItsOwnResource()
      throws Exception {
    PoolFile pool = PoolFile.open(dir, 1);
    Map<String, Original> original = provision(pool);
    pool.append(
        List.of(
            cloudInit(1795322355, "start", "init-local", T0.minusSeconds(60), null),
            cloudInit(1795322355, "finish", "init-local", T0.minusSeconds(50), "SUCCESS")));
    Path file = dir.resolve("spans.jsonl");

    CliRun export = CliRun.of("export", "--dir", dir.toString(), "--otlp-json", file.toString());
    assertThat(export.exit()).isZero();

    assertThat(export.err().strip())
        .isEqualTo("exported 5 spans (cloud-init: 1, kvprov: 4) to " + file);
    List<String> lines = Files.readAllLines(file);
    assertThat(lines).hasSize(1);
    JsonNode request = new ObjectMapper().readTree(lines.get(0));
    Map<String, JsonNode> spans = new LinkedHashMap<>();
    List<String> services = new ArrayList<>();
    for (JsonNode resourceSpans : request.path("resourceSpans")) {
      for (JsonNode a : resourceSpans.path("resource").path("attributes")) {
        if (a.path("key").asText().equals("service.name")) {
          services.add(a.path("value").path("stringValue").asText());
        }
      }
      for (JsonNode scopeSpans : resourceSpans.path("scopeSpans")) {
        assertThat(scopeSpans.path("scope").path("name").asText()).isEqualTo("kvp");
        scopeSpans.path("spans").forEach(s -> spans.put(s.path("name").asText(), s));
      }
    }
    assertThat(services).containsExactlyInAnyOrder("kvprov", "cloud-init");
    assertThat(spans)
        .containsOnlyKeys("provision", "imds.fetch", "user.create", "hangs", "init-local");
    spans
        .values()
        .forEach(
            s -> {
              assertThat(s.path("traceId").asText()).matches("[0-9a-f]{32}");
              assertThat(s.path("spanId").asText()).matches("[0-9a-f]{16}");
              // OTLP JSON: 64-bit integers as strings
              assertThat(s.path("startTimeUnixNano").isTextual()).isTrue();
              assertThat(s.path("endTimeUnixNano").isTextual()).isTrue();
            });
    JsonNode user = spans.get("user.create");
    assertThat(user.path("traceId").asText()).isEqualTo(original.get("user.create").traceId());
    assertThat(user.path("spanId").asText()).isEqualTo(original.get("user.create").spanId());
    assertThat(user.path("parentSpanId").asText()).isEqualTo(original.get("provision").spanId());
    assertThat(user.path("startTimeUnixNano").asText())
        .isEqualTo(Long.toString(nanos(T0.plusMillis(2200))));
    assertThat(user.path("status").path("code").asInt()).isEqualTo(2); // STATUS_CODE_ERROR
    assertThat(user.path("status").path("message").asText()).isEqualTo("useradd exited 9");
  }

  @Test
  void otlpJson_toStdout() throws Exception {
    CliRun export =
        CliRun.of(
            "export", "--file", KvpCommandTest.CLOUD_INIT_POOL.toString(), "--otlp-json", "-");
    assertThat(export.exit()).isZero();

    JsonNode request = export.json();
    assertThat(request.path("resourceSpans").get(0).path("scopeSpans").get(0).path("spans"))
        .hasSize(2);
    assertThat(export.err()).contains("to stdout");
  }

  @Test
  void aBaseUrlWithAQuery_getsTheTracesPath_andItsQueryAsWritten() throws Exception {
    PoolFile pool = PoolFile.open(dir, 1);
    provision(pool);
    try (OtlpTraceReceiver receiver = OtlpTraceReceiver.answering(200)) {
      String base = receiver.url().replace("/v1/traces", "/?tenant=a%20b");

      CliRun export = CliRun.of("export", "--dir", dir.toString(), "--otlp", base);
      assertThat(export.exit()).isZero();

      assertThat(receiver.queries()).containsExactly("tenant=a%20b");
    }
  }

  @Test
  void headers_reachTheCollector_andAreNeverEchoed() throws Exception {
    PoolFile pool = PoolFile.open(dir, 1);
    provision(pool);
    try (OtlpTraceReceiver receiver = OtlpTraceReceiver.answering(200)) {
      String base = receiver.url().replace("/v1/traces", "");
      CliRun export =
          CliRun.of(
              "export",
              "--dir",
              dir.toString(),
              "--otlp",
              base,
              "--header",
              "Authorization=Bearer s3cret");
      assertThat(export.exit()).isZero();
      assertThat(receiver.headers().get(0).get("Authorization")).containsExactly("Bearer s3cret");
      assertThat(export.err()).endsWith("to " + receiver.url() + System.lineSeparator());

      // Refused, and never said back: a header name cannot be told from a value pasted the wrong
      // way round, so not even the name is echoed.
      for (String[] refused :
          new String[][] {
            {"Authorization: Bearer s3cret", "--header takes NAME=VALUE", "s3cret"},
            {"Authorization=Bearer s3cret\r\nX-Injected: 1", "control characters", "s3cret"},
            {"Authorization: Basic dXNlcjpzM2NyZXQ=", "--header", "dXNlcjpzM2NyZXQ"}
          }) {
        export =
            CliRun.of(
                "export",
                "--dir",
                dir.toString(),
                "--otlp",
                receiver.url(),
                "--header",
                refused[0]);
        assertThat(export.exit()).as(refused[0]).isEqualTo(2);
        assertThat(export.err()).as(refused[0]).contains(refused[1]).doesNotContain(refused[2]);
      }
      assertThat(receiver.requests()).hasSize(1); // none from the refused headers
    }
  }

  @Test
  void credentialsInTheUrl_areRefused_withoutSayingThemBack() throws Exception {
    PoolFile pool = PoolFile.open(dir, 1);
    provision(pool);
    try (OtlpTraceReceiver receiver = OtlpTraceReceiver.answering(200)) {
      for (String url :
          List.of(
              receiver.url().replace("http://", "http://user:s3cret@"),
              receiver.url().replace("http://", "http://s3cret@"),
              receiver.url().replace("http://", "http://user:s3cret@").replace("/v1/traces", ""),
              // not even one the URL parser refuses, quoting it
              receiver.url().replace("http://", "http://user:s3cret%zz@"))) {
        CliRun export = CliRun.of("export", "--dir", dir.toString(), "--otlp", url);
        assertThat(export.exit()).as(url).isEqualTo(2);

        assertThat(export.err()).as(url).doesNotContain("s3cret");
        if (!url.contains("%zz")) {
          assertThat(export.err().lines().findFirst().orElseThrow())
              .isEqualTo(
                  "kvp export: --otlp: credentials in a URL are not sent;"
                      + " pass them as --header Authorization=...");
        }
      }
      assertThat(receiver.requests()).isEmpty();
    }
  }

  @Test
  void help_aOneLineSummary_thenACompleteDescription_inLinesThatFit() {
    String[] description =
        KvpCommand.commandLine()
            .getSubcommands()
            .get("export")
            .getCommandSpec()
            .usageMessage()
            .description();
    assertThat(description).allSatisfy(line -> assertThat(line).hasSizeLessThanOrEqualTo(78));
    assertThat(description[1]).isEmpty();
    String body = String.join(" ", List.of(description).subList(2, description.length));
    assertThat(body)
        .endsWith(".")
        .doesNotContain(description[0])
        .contains("--otlp ", "--otlp-json", "--header");
    assertThat(body.chars().filter(c -> c == '(').count())
        .isEqualTo(body.chars().filter(c -> c == ')').count());

    CliRun export = CliRun.of("export", "--help");
    assertThat(export.exit()).isZero();
    assertThat(export.out()).contains(description[description.length - 1]);
    assertThat(export.out().lines()).allSatisfy(l -> assertThat(l).hasSizeLessThanOrEqualTo(80));
  }

  @Test
  void spansOverCenturies_areExported_timesHeldToWhatOtlpHolds() throws Exception {
    PoolFile.open(dir, 1).append(KvprovSpanRecords.overCenturies());

    CliRun export = CliRun.of("export", "--dir", dir.toString(), "--otlp-json", "-");
    assertThat(export.exit()).isZero();

    Map<String, JsonNode> spans = new LinkedHashMap<>();
    new ObjectMapper()
        .readTree(export.out())
        .findValues("spans")
        .forEach(list -> list.forEach(s -> spans.put(s.path("name").asText(), s)));
    assertThat(spans).containsOnlyKeys("centuries", "all-of-time");
    // OTLP's times are nanoseconds since 1970 in 64 bits: 1970 to 2262.
    assertThat(spans.get("centuries").path("startTimeUnixNano").asLong())
        .isEqualTo(nanos(Instant.parse("2026-11-22T04:40:00Z")));
    assertThat(spans.get("centuries").path("endTimeUnixNano").asLong()).isEqualTo(Long.MAX_VALUE);
    assertThat(spans.get("all-of-time").path("startTimeUnixNano").asLong(0)).isZero();
    assertThat(spans.get("all-of-time").path("endTimeUnixNano").asLong()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void aChainOfFiveThousandSpans_isExportedWhole() throws Exception {
    int depth = 5000;
    PoolFile.open(dir, 1).append(KvprovSpanRecords.chain(depth, T0));

    CliRun export = CliRun.of("export", "--dir", dir.toString(), "--otlp-json", "-");
    assertThat(export.exit()).isZero();

    Map<String, JsonNode> spans = new LinkedHashMap<>();
    new ObjectMapper()
        .readTree(export.out())
        .findValues("spans")
        .forEach(list -> list.forEach(s -> spans.put(s.path("name").asText(), s)));
    assertThat(spans).hasSize(depth);
    for (int i = 0; i < depth; i++) {
      JsonNode span = spans.get("s" + i);
      assertThat(span.path("spanId").asText()).isEqualTo(KvprovSpanRecords.spanId(i));
      assertThat(span.path("parentSpanId").asText(""))
          .isEqualTo(i == 0 ? "" : KvprovSpanRecords.spanId(i - 1));
      assertThat(span.path("startTimeUnixNano").asLong()).isEqualTo(nanos(T0.plusMillis(i)));
    }
  }

  @Test
  void aCollectorAnswering500_isAnIoError_inOneLine() throws Exception {
    PoolFile pool = PoolFile.open(dir, 1);
    provision(pool);
    try (OtlpTraceReceiver receiver = OtlpTraceReceiver.answering(500)) {
      CliRun export = CliRun.of("export", "--dir", dir.toString(), "--otlp", receiver.url());
      assertThat(export.exit()).isEqualTo(3);

      assertThat(receiver.requests()).hasSize(1); // one attempt, no retries
      assertThat(reason(export, receiver.url())).contains("500");
    }
  }

  @Test
  void aClosedPort_isAnIoError_inOneLine() throws Exception {
    PoolFile pool = PoolFile.open(dir, 1);
    provision(pool);
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    String url = "http://127.0.0.1:" + port + "/v1/traces";

    CliRun export = CliRun.of("export", "--dir", dir.toString(), "--otlp", url);
    assertThat(export.exit()).isEqualTo(3);

    assertThat(reason(export, url)).isEqualTo("connection refused");
  }

  @Test
  void aCollectorThatNeverAnswers_isGivenUpOn_afterTheTimeout() throws Exception {
    PoolFile pool = PoolFile.open(dir, 1);
    provision(pool);
    try (OtlpTraceReceiver receiver = OtlpTraceReceiver.stalled()) {
      CliRun export =
          CliRun.of("export", "--dir", dir.toString(), "--otlp", receiver.url(), "--timeout", "1");
      assertThat(export.exit()).isEqualTo(3);

      // the sender's own timeout, or ours a second later on a slow machine
      assertThat(reason(export, receiver.url())).containsAnyOf("timed out", "no answer within 1 s");
    }
  }

  @Test
  void aPoolWithoutSpans_exportsNothing_andSaysSo() throws Exception {
    PoolFile pool = PoolFile.open(dir, 1);
    pool.append(new KvpRecord("PROVISIONING_REPORT", "result=success|agent=x|vm_id=" + VM_ID));
    Path file = dir.resolve("spans.jsonl");
    try (OtlpTraceReceiver receiver = OtlpTraceReceiver.answering(200)) {
      CliRun export =
          CliRun.of(
              "export",
              "--dir",
              dir.toString(),
              "--otlp",
              receiver.url(),
              "--otlp-json",
              file.toString());
      assertThat(export.exit()).isEqualTo(1);

      assertThat(export.err()).contains("no spans in").contains("nothing exported");
      assertThat(receiver.requests()).isEmpty();
      assertThat(file).doesNotExist();
    }
  }

  @Test
  void usageErrors_aMissingPool_andAnUnwritableFile() throws IOException {
    CliRun export = CliRun.of("export", "--dir", dir.toString());
    assertThat(export.exit()).isEqualTo(2);
    assertThat(export.err()).contains("--otlp URL, --otlp-json FILE");

    export = CliRun.of("export", "--dir", dir.toString(), "--otlp", "ftp://host/x");
    assertThat(export.exit()).isEqualTo(2);

    export = CliRun.of("export", "--dir", dir.toString(), "--otlp-json", "-");
    assertThat(export.exit()).isEqualTo(3);
    assertThat(export.err()).startsWith("kvp export: " + dir.resolve(".kvp_pool_1"));

    Path nowhere = dir.resolve("no/such/dir/spans.jsonl");
    String pool = KvpCommandTest.CLOUD_INIT_POOL.toString();
    export = CliRun.of("export", "--file", pool, "--otlp-json", nowhere.toString());
    assertThat(export.exit()).isEqualTo(3);
    assertThat(export.err().strip()).isEqualTo("kvp export: " + nowhere + ": no such directory");
  }
}
