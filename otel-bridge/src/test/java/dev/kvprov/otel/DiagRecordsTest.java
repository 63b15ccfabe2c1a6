package dev.kvprov.otel;

import static io.opentelemetry.api.common.AttributeKey.stringKey;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.kvp.KvpRecord;
import io.opentelemetry.api.trace.Span;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import java.util.zip.Inflater;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kvprov's records in azure-init's {@code DIAG} grammar, read back by this test's own reading of
 * the grammar as docs/kvp-format.md pins it (not by kvp's parser, nor by the writer's code).
 */
class DiagRecordsTest {
  @TempDir Path dir;
  private Harness harness;

  @BeforeEach
  void setUp() throws Exception {
    harness = new Harness(dir);
  }

  /** kvprov's telemetry: its DIAG records are the agent {@code kvprov/<version>}'s. */
  private KvpTelemetry.Builder telemetry() {
    return harness.telemetry().serviceName("kvprov");
  }

  // ---- an independent reading of the documented grammar ----

  private static final Pattern UUID =
      Pattern.compile(
          "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
  private static final Pattern RFC3339_UTC =
      Pattern.compile("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?Z");
  private static final Pattern SIX_DECIMALS = Pattern.compile("\\d+\\.\\d{6}");

  /** One payload: its key's fields (piece number left out) and the decoded text. */
  record Diag(
      String agent,
      String vmId,
      String kind,
      String name,
      String eventId,
      String timestamp,
      String encoding,
      String result,
      String duration,
      int pieces,
      String payload) {}

  /** Every DIAG payload of the pool, in pool order, each checked against the grammar. */
  static List<Diag> read(List<KvpRecord> pool) throws Exception {
    Map<String, TreeMap<Integer, String>> groups = new LinkedHashMap<>();
    for (KvpRecord r : pool) {
      if (!r.key().startsWith("DIAG|")) {
        continue;
      }
      assertThat(r.key().getBytes(UTF_8).length).as(r.key()).isLessThanOrEqualTo(254);
      assertThat(r.value().getBytes(UTF_8).length).as(r.key()).isLessThanOrEqualTo(1022);
      String[] f = r.key().split("\\|", -1);
      assertThat(f).as(r.key()).hasSize(11);
      assertThat(f[10]).as(r.key()).matches("0|[1-9]\\d*");
      String base = r.key().substring(0, r.key().lastIndexOf('|'));
      TreeMap<Integer, String> pieces = groups.computeIfAbsent(base, b -> new TreeMap<>());
      assertThat(pieces.put(Integer.parseInt(f[10]), r.value())).as("piece twice").isNull();
    }
    List<Diag> out = new ArrayList<>();
    for (Map.Entry<String, TreeMap<Integer, String>> g : groups.entrySet()) {
      String[] f = g.getKey().split("\\|", -1);
      assertThat(f[1].getBytes(UTF_8).length).isBetween(1, 32);
      assertThat(f[2]).matches(UUID);
      assertThat(f[3]).isIn("start", "finish", "event");
      assertThat(f[4].getBytes(UTF_8).length).isBetween(1, 64);
      assertThat(f[5]).matches(UUID);
      assertThat(f[6]).matches(RFC3339_UTC);
      assertThat(f[7]).isIn("none", "gz+b64", "zlib+b64");
      switch (f[3]) {
        case "start" -> assertThat(f[8] + f[9]).isEmpty();
        case "finish" -> {
          assertThat(f[8]).isIn("success", "fail");
          assertThat(f[9]).matches(SIX_DECIMALS);
        }
        default -> {
          assertThat(f[8]).isIn("", "success", "fail");
          assertThat(f[9]).matches("|" + SIX_DECIMALS.pattern());
        }
      }
      TreeMap<Integer, String> pieces = g.getValue();
      assertThat(pieces.firstKey()).isZero();
      assertThat(pieces.lastKey()).isEqualTo(pieces.size() - 1);
      ByteArrayOutputStream joined = new ByteArrayOutputStream();
      for (Map.Entry<Integer, String> p : pieces.entrySet()) {
        byte[] bytes = p.getValue().getBytes(UTF_8);
        if (p.getKey() < pieces.lastKey()) {
          // a cut steps back at most three bytes to end on a whole character
          assertThat(bytes.length).isBetween(1019, 1022);
        }
        joined.write(bytes);
      }
      String stored = joined.toString(UTF_8);
      String payload =
          switch (f[7]) {
            case "none" -> stored;
            case "zlib+b64" -> inflate(Base64.getDecoder().decode(stored));
            default ->
                new String(
                    new GZIPInputStream(
                            new java.io.ByteArrayInputStream(Base64.getDecoder().decode(stored)))
                        .readAllBytes(),
                    UTF_8);
          };
      out.add(
          new Diag(f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], pieces.size(), payload));
    }
    return out;
  }

  private static String inflate(byte[] zlib) throws Exception {
    Inflater inflater = new Inflater();
    inflater.setInput(zlib);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buffer = new byte[4096];
    while (!inflater.finished()) {
      int n = inflater.inflate(buffer);
      assertThat(n > 0 || !inflater.needsInput()).as("a whole zlib stream").isTrue();
      out.write(buffer, 0, n);
    }
    return UTF_8
        .newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .decode(ByteBuffer.wrap(out.toByteArray()))
        .toString();
  }

  // ---- the tests ----

  @Test
  void withDiagRecords_eachStepIsAlsoAnOperationInAzureInitsGrammar() throws Exception {
    try (KvpTelemetry telemetry = telemetry().serviceVersion("0.1.0").diagRecords(true).build()) {
      KvpTelemetryTest.provision(telemetry);
    }

    List<Diag> diag = read(harness.records());
    assertThat(diag).extracting(Diag::agent).containsOnly("kvprov/0.1.0");
    assertThat(diag).extracting(Diag::vmId).containsOnly(Harness.VM_ID);
    assertThat(diag)
        .extracting(d -> d.kind() + " " + d.name() + " " + d.result())
        .containsExactly(
            "start provision ",
            "start imds.fetch ",
            "event retrying ",
            "finish imds.fetch success",
            "start user.create ",
            "event kvprov ",
            "finish user.create fail",
            "finish provision fail");
    // start and finish of one operation share its event id; events have their own
    Map<String, List<String>> byId = new LinkedHashMap<>();
    diag.forEach(d -> byId.computeIfAbsent(d.eventId(), i -> new ArrayList<>()).add(d.kind()));
    assertThat(byId.values())
        .containsExactly(
            List.of("start", "finish"),
            List.of("start", "finish"),
            List.of("event"),
            List.of("start", "finish"),
            List.of("event"));
    Diag failed = diag.get(6);
    assertThat(failed.payload())
        .contains("\"level\":\"ERROR\"")
        .contains("\"message\":\"useradd exited 9\"")
        .contains("Status: error");
    assertThat(diag.get(5).payload())
        .contains("\"level\":\"WARN\"")
        .contains("\"message\":\"useradd is slow\"");
    // the same records in kvprov's own form, untouched
    assertThat(harness.decoded()).hasSize(8);
  }

  @Test
  void withoutTheSetting_noDiagRecordIsWritten() throws Exception {
    try (KvpTelemetry telemetry = telemetry().build()) {
      KvpTelemetryTest.provision(telemetry);
    }
    assertThat(harness.records()).noneMatch(r -> r.key().startsWith("DIAG|"));
  }

  @Test
  void aLongValue_isCompressed_andCutIntoNumberedPiecesOfAtMost1022Bytes() throws Exception {
    Random random = new Random(28);
    List<String> texts = new ArrayList<>();
    for (int a = 0; a < 10; a++) {
      StringBuilder text = new StringBuilder();
      for (int i = 0; i < 50; i++) {
        text.appendCodePoint(0x4e00 + random.nextInt(0x40)); // three bytes each
        text.appendCodePoint(0x1f600 + random.nextInt(0x40)); // four bytes each
      }
      texts.add(text.toString());
    }
    try (KvpTelemetry telemetry = telemetry().diagRecords(true).build()) {
      Span span = telemetry.tracer().spanBuilder("collect.logs").startSpan();
      for (int a = 0; a < texts.size(); a++) {
        span.setAttribute(stringKey("journal" + a), texts.get(a)); // 350 bytes each
      }
      span.end();
    }

    Diag finish =
        read(harness.records()).stream()
            .filter(d -> d.kind().equals("finish"))
            .findFirst()
            .orElseThrow();
    assertThat(finish.encoding()).as(finish.payload()).isEqualTo("zlib+b64");
    assertThat(finish.pieces()).isGreaterThan(1);
    assertThat(finish.payload()).contains("\"kvprov\":");
    assertThat(texts).allSatisfy(t -> assertThat(finish.payload()).contains(t));
  }

  @Test
  void pieces_endOnWholeCharacters_andJoinBackToTheValue() {
    StringBuilder text = new StringBuilder("a");
    for (int i = 0; i < 700; i++) {
      text.append("é😀€");
    }
    List<String> pieces = DiagRecordFormat.pieces(text.toString());
    assertThat(String.join("", pieces)).isEqualTo(text.toString());
    for (int i = 0; i < pieces.size(); i++) {
      byte[] bytes = pieces.get(i).getBytes(UTF_8);
      assertThat(bytes.length).isLessThanOrEqualTo(1022);
      if (i < pieces.size() - 1) {
        assertThat(bytes.length).isGreaterThanOrEqualTo(1019);
      }
      assertThat(pieces.get(i)).doesNotContain("\uFFFD");
    }
    assertThat(DiagRecordFormat.pieces("")).containsExactly("");
  }

  @Test
  void theBudget_coversBothForms_andAStepIsInBothOrInNeither() throws Exception {
    try (KvpTelemetry telemetry =
        telemetry().recordBudget(20).diagRecords(true).noStderrMirror().build()) {
      for (int i = 0; i < 10; i++) { // each: a start and an end, in two forms: 4 records
        telemetry.tracer().spanBuilder("step" + i).startSpan().end();
      }
      assertThat(telemetry.droppedRecords()).isEqualTo(5 * 4);
    }

    List<KvpRecord> all = harness.records();
    List<KvprovRecord> kvprov = harness.decoded();
    long kvprovRecords =
        all.stream().filter(r -> KvpRecordFormat.isKvprovKey(r.key())).count() - 1; // the count
    long diagRecords = all.stream().filter(r -> r.key().startsWith("DIAG|")).count();
    assertThat(kvprovRecords + diagRecords).isEqualTo(20);
    assertThat(kvprov)
        .filteredOn(r -> r.kind() == KvprovRecord.Kind.END)
        .extracting(r -> r.name().orElseThrow())
        .containsExactly("step0", "step1", "step2", "step3", "step4");
    assertThat(read(all))
        .filteredOn(d -> d.kind().equals("finish"))
        .extracting(Diag::name)
        .containsExactly("step0", "step1", "step2", "step3", "step4");
  }

  @Test
  void anEarlierRunsDiagRecords_countAgainstThisBootsBudget() throws Exception {
    try (KvpTelemetry first = telemetry().diagRecords(true).noStderrMirror().build()) {
      for (int i = 0; i < 5; i++) {
        first.tracer().spanBuilder("first" + i).startSpan().end(); // 10 + 10 records
      }
    }
    try (KvpTelemetry second =
        telemetry().recordBudget(24).diagRecords(true).noStderrMirror().build()) {
      second.tracer().spanBuilder("second").startSpan().end(); // 4: to 24
      second.tracer().spanBuilder("third").startSpan().end(); // dropped
      assertThat(second.droppedRecords()).isEqualTo(4);
    }
  }

  @Test
  void anUnknownVmId_isTheNilUuid_whichAzureInitsReaderTakes() throws Exception {
    try (KvpTelemetry telemetry =
        telemetry()
            .vmId(new dev.kvprov.kvp.VmId(dev.kvprov.kvp.VmId.UNKNOWN, "test"))
            .diagRecords(true)
            .build()) {
      telemetry.tracer().spanBuilder("a name | with a pipe\nand a line break").startSpan().end();
    }
    List<Diag> diag = read(harness.records());
    assertThat(diag).extracting(Diag::vmId).containsOnly("00000000-0000-0000-0000-000000000000");
    assertThat(diag).extracting(Diag::name).containsOnly("a name _ with a pipe_and a line break");
  }

  @Test
  void secrets_neverReachTheDiagRecords() throws Exception {
    try (KvpTelemetry telemetry = telemetry().secret("never-log-me").diagRecords(true).build()) {
      Span span = telemetry.tracer().spanBuilder("user.password").startSpan();
      span.setAttribute("note", "set to never-log-me");
      span.setAttribute("password", "never-log-me");
      telemetry.logger().logRecordBuilder().setBody("chpasswd got never-log-me").emit();
      span.end();
    }
    List<Diag> diag = read(harness.records());
    assertThat(diag).isNotEmpty();
    assertThat(diag).allSatisfy(d -> assertThat(d.payload()).doesNotContain("never-log-me"));
    assertThat(harness.records())
        .allSatisfy(r -> assertThat(r.key() + r.value()).doesNotContain("never-log-me"));
  }
}
