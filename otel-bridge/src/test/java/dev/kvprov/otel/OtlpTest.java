package dev.kvprov.otel;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.kvprov.fixtures.Fixtures;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OtlpTest {
  @TempDir Path dir;
  private Harness harness;

  @BeforeEach
  void setUp() throws Exception {
    harness = new Harness(dir);
  }

  @Test
  void spansAndLogs_reachARealReceiver_withNamesParentsAndAttributes() throws Exception {
    try (OtlpReceiver receiver = new OtlpReceiver(0)) {
      try (KvpTelemetry telemetry =
          harness.telemetry().noStderrMirror().otlpEndpoint(receiver.baseUrl()).build()) {
        KvpTelemetryTest.provision(telemetry);
      }

      Map<String, Span> spans =
          receiver.spans().stream().collect(Collectors.toMap(Span::getName, Function.identity()));
      assertThat(spans).containsOnlyKeys("provision", "imds.fetch", "user.create");
      ByteString root = spans.get("provision").getSpanId();
      assertThat(spans.get("imds.fetch").getParentSpanId()).isEqualTo(root);
      assertThat(spans.get("user.create").getParentSpanId()).isEqualTo(root);
      assertThat(spans.get("provision").getParentSpanId()).isEmpty();
      assertThat(attribute(spans.get("imds.fetch").getAttributesList(), "attempts").getIntValue())
          .isEqualTo(2);
      assertThat(spans.get("imds.fetch").getEvents(0).getName()).isEqualTo("retrying");
      assertThat(spans.get("user.create").getStatus().getMessage()).isEqualTo("useradd exited 9");
      assertThat(receiver.logs()).hasSize(1);
      assertThat(receiver.logs().get(0).getBody().getStringValue()).isEqualTo("useradd is slow");
      assertThat(receiver.logs().get(0).getSpanId())
          .isEqualTo(spans.get("user.create").getSpanId());
      // The same trace in KVP and over OTLP: one span id space.
      String kvpRootId =
          harness.decoded().stream()
              .filter(r -> r.name().orElse("").equals("provision"))
              .findFirst()
              .orElseThrow()
              .spanId()
              .orElseThrow();
      assertThat(HexFormat.of().formatHex(root.toByteArray())).isEqualTo(kvpRootId);
    }
  }

  @Test
  void theStandardEnvironmentVariables_chooseTheEndpoints() throws Exception {
    try (OtlpReceiver receiver = new OtlpReceiver(0)) {
      try (KvpTelemetry telemetry =
          harness
              .telemetry()
              .noStderrMirror()
              .environment(
                  Map.of(
                      "OTEL_EXPORTER_OTLP_ENDPOINT",
                      "http://127.0.0.1:9/unused",
                      "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                      receiver.baseUrl() + "/v1/traces"))
              .build()) {
        telemetry.tracer().spanBuilder("from-env").startSpan().end();
      }

      assertThat(receiver.spans()).extracting(Span::getName).containsExactly("from-env");
    }
  }

  @Test
  void aStalledCollector_holdsUpCloseOnlyForTheBoundedTime_andIsReportedOnce() throws Exception {
    try (OtlpReceiver stalled = new OtlpReceiver(60_000)) {
      KvpTelemetry telemetry =
          harness
              .telemetry()
              .noStderrMirror()
              .otlpEndpoint(stalled.baseUrl())
              .otlpTimeout(java.time.Duration.ofMillis(500))
              .build();
      KvpTelemetryTest.provision(telemetry);

      long started = System.nanoTime();
      telemetry.close();
      long closeMillis = (System.nanoTime() - started) / 1_000_000;

      // A functional bound, not a benchmark: the collector would hold us for a minute.
      assertThat(closeMillis).isLessThan(3_000);
      assertThat(harness.decoded()).hasSize(8); // KVP got everything regardless
    }
    assertThat(harness.stderr().split("the OTLP sink failed", -1)).hasSize(2);
  }

  @Test
  void theCanaryPassword_reachesNoSink_whereverItWasPlanted() throws Exception {
    String canary = canaryFromFixture();
    try (OtlpReceiver receiver = new OtlpReceiver(0)) {
      try (KvpTelemetry telemetry =
          harness
              .telemetry()
              .stderrLevel(KvprovRecord.Level.DEBUG)
              .otlpEndpoint(receiver.baseUrl())
              .build()) {
        telemetry.redactor().register(canary);
        CanaryTrace.plant(telemetry, canary);
      }

      assertThat(receiver.spans()).isNotEmpty();
      assertThat(receiver.logs()).isNotEmpty();
      assertThat(new String(receiver.wireBytes(), UTF_8))
          .doesNotContain(canary)
          .doesNotContain("never-log-me");
    }
    assertThat(new String(harness.poolBytes(), UTF_8))
        .doesNotContain(canary)
        .doesNotContain("never-log-me");
    assertThat(harness.stderr()).doesNotContain(canary).doesNotContain("never-log-me");
    // ...while the rest of the trace is there: the test would notice a sink that wrote nothing.
    assertThat(harness.stderr()).contains("user.password: started").contains(Redactor.MASK);
    assertThat(harness.decoded()).hasSizeGreaterThan(5);
  }

  /** The admin password from the ovf-env.xml fixture (a canary: it must never be output). */
  static String canaryFromFixture() {
    String ovf = Fixtures.text(Fixtures.OVF_ENV);
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("<(?:\\w+:)?UserPassword>([^<]+)</").matcher(ovf);
    assertThat(m.find()).as("the fixture holds a password").isTrue();
    assertThat(m.group(1)).contains("never-log-me");
    return m.group(1);
  }

  private static io.opentelemetry.proto.common.v1.AnyValue attribute(
      List<KeyValue> attributes, String key) {
    return attributes.stream()
        .filter(kv -> kv.getKey().equals(key))
        .findFirst()
        .orElseThrow()
        .getValue();
  }
}
