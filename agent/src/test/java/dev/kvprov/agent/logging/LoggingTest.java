package dev.kvprov.agent.logging;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.kvprov.fixtures.Fixtures;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.VmId;
import dev.kvprov.otel.KvpRecordFormat;
import dev.kvprov.otel.KvpTelemetry;
import dev.kvprov.otel.KvprovRecord;
import dev.kvprov.otel.Redactor;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** SLF4J events through logback into the telemetry, and the mirror's lines back out. */
class LoggingTest {
  private static final Logger LOG = LoggerFactory.getLogger(LoggingTest.class);

  @TempDir Path dir;
  private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
  private final PrintStream err = new PrintStream(stderr, true, UTF_8);
  private PoolFile pool;

  @BeforeEach
  void setUp() {
    pool = PoolFile.open(dir.resolve("hyperv"), 1);
  }

  @AfterEach
  void builtInSetUpAgain() {
    Logging.configure(dir.resolve("none.xml"), System.err, Map.of());
  }

  private KvpTelemetry.Builder telemetry() {
    Logging.configure(dir.resolve("etc/kvprov/logback.xml"), err, Map.of());
    return KvpTelemetry.builder()
        .vmId(new VmId(VmId.UNKNOWN, "test"))
        .kvp(pool)
        .stderr(err)
        .environment(Map.of())
        .stderrLines(Logging.mirrorLines());
  }

  private List<KvprovRecord> logs() throws Exception {
    return KvpRecordFormat.decode(pool.read().records()).records().stream()
        .map(KvpRecordFormat.DecodedRecord::record)
        .filter(r -> r.kind() == KvprovRecord.Kind.LOG)
        .toList();
  }

  @Test
  void aLogEvent_isARecordInItsSpan_inKvpAndOnStderr_once() throws Exception {
    try (KvpTelemetry telemetry = telemetry().build()) {
      Logging.sendTo(telemetry);
      Span step = telemetry.tracer().spanBuilder("provision.user").startSpan();
      try (Scope ignored = step.makeCurrent()) {
        LOG.atWarn().addKeyValue("group", "docker").log("group {} does not exist", "docker");
      }
      step.end();
    }

    List<KvprovRecord> logs = logs();
    assertThat(logs).hasSize(1);
    KvprovRecord log = logs.get(0);
    assertThat(log.level()).isEqualTo(KvprovRecord.Level.WARN);
    assertThat(log.field(KvpRecordFormat.BODY)).contains("group docker does not exist");
    assertThat(log.name()).contains(LoggingTest.class.getName());
    assertThat(log.spanId()).isPresent();
    // The mirror's line, written by logback, in the span's path: once, not fed back as a record.
    assertThat(stderr.toString(UTF_8).lines().filter(l -> l.contains("does not exist")))
        .singleElement()
        .asString()
        .matches(
            "\\[[-0-9T:.Z]+\\] WARN  provision\\.user: group docker does not exist"
                + " \\(group=docker\\)");
  }

  @Test
  void theMirrorsOwnLogger_isNeverSentIntoTheTelemetry() throws Exception {
    try (KvpTelemetry telemetry = telemetry().build()) {
      Logging.sendTo(telemetry);
      telemetry.tracer().spanBuilder("step").startSpan().end();
      LoggerFactory.getLogger(Logging.MIRROR).warn("a line of the mirror");
    }

    assertThat(pool.read().records()).isNotEmpty(); // the span's
    assertThat(logs()).isEmpty();
    assertThat(stderr.toString(UTF_8)).contains("WARN  kvprov: a line of the mirror");
  }

  @Test
  void aSecretInALogEvent_isMaskedOnStderr_inKvp_andInOtlp() throws Exception {
    ConcurrentLinkedQueue<byte[]> otlp = new ConcurrentLinkedQueue<>();
    HttpServer collector = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    collector.createContext(
        "/",
        exchange -> {
          otlp.add(exchange.getRequestBody().readAllBytes());
          exchange.sendResponseHeaders(200, -1);
          exchange.close();
        });
    collector.start();
    try (KvpTelemetry telemetry =
        telemetry()
            .otlpEndpoint("http://127.0.0.1:" + collector.getAddress().getPort())
            // the property is what is sent, not how fast: a loaded machine may be slow to send
            .otlpTimeout(java.time.Duration.ofSeconds(30))
            .build()) {
      Logging.sendTo(telemetry);
      telemetry.redactor().register(Fixtures.CANARY);
      LOG.info("the admin password is {}", Fixtures.CANARY);
    } finally {
      collector.stop(0);
    }

    assertThat(stderr.toString(UTF_8))
        .contains("the admin password is " + Redactor.MASK)
        .doesNotContain(Fixtures.CANARY);
    assertThat(logs())
        .singleElement()
        .satisfies(
            r ->
                assertThat(r.field(KvpRecordFormat.BODY))
                    .contains("the admin password is " + Redactor.MASK));
    assertThat(new String(Files.readAllBytes(pool.path()), UTF_8)).doesNotContain(Fixtures.CANARY);
    String sent = new String(otlp.stream().reduce(new byte[0], LoggingTest::concat), UTF_8);
    assertThat(sent).contains("the admin password is").doesNotContain(Fixtures.CANARY);
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] both = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, both, a.length, b.length);
    return both;
  }

  @Test
  void aLogbackXmlThatCannotBeUsed_isSaidInOneLine_andTheBuiltInSetUpServes() throws Exception {
    Path xml = Files.createDirectories(dir.resolve("etc/kvprov")).resolve("logback.xml");
    Files.writeString(xml, "<configuration><appender name=\"x\" class=\"no.such.Appender\"/>");

    try (KvpTelemetry telemetry = telemetry().build()) {
      Logging.sendTo(telemetry);
      LOG.warn("still said");
    }

    List<String> lines = stderr.toString(UTF_8).lines().toList();
    assertThat(lines.get(0))
        .startsWith("kvprov: " + xml + " was not used: ")
        .endsWith("; logging as built in");
    assertThat(lines).hasSize(2);
    assertThat(lines.get(1)).contains("WARN  " + LoggingTest.class.getName() + ": still said");
  }
}
