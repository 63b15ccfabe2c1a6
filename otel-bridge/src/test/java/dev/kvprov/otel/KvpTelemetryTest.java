package dev.kvprov.otel;

import static io.opentelemetry.api.common.AttributeKey.stringKey;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.logs.Severity;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KvpTelemetryTest {
  @TempDir Path dir;
  private Harness harness;

  @BeforeEach
  void setUp() throws Exception {
    harness = new Harness(dir);
  }

  /** A provisioning-shaped trace: a root, a step with a retry event, a failing step with a log. */
  static void provision(KvpTelemetry telemetry) {
    Tracer tracer = telemetry.tracer();
    Span root = tracer.spanBuilder("provision").startSpan();
    try (Scope ignored = root.makeCurrent()) {
      Span imds = tracer.spanBuilder("imds.fetch").setAttribute("attempts", 2L).startSpan();
      imds.addEvent("retrying", Attributes.of(stringKey("reason"), "timeout"));
      imds.end();
      Span user = tracer.spanBuilder("user.create").setAttribute("user", "azureuser").startSpan();
      try (Scope inUser = user.makeCurrent()) {
        telemetry
            .logger()
            .logRecordBuilder()
            .setSeverity(Severity.WARN)
            .setBody("useradd is slow")
            .emit();
      }
      user.setStatus(StatusCode.ERROR, "useradd exited 9");
      user.end();
    }
    root.setStatus(StatusCode.ERROR, "user.create failed");
    root.end();
  }

  @Test
  void aTrace_isWrittenAsItHappens_andItsTreeComesBackFromTheRecordsAlone() throws Exception {
    try (KvpTelemetry telemetry = harness.telemetry().build()) {
      provision(telemetry);
    }

    List<KvprovRecord> records = harness.decoded();
    assertThat(records)
        .extracting(r -> r.kind() + " " + r.name().orElse("?"))
        .containsExactly(
            "START provision",
            "START imds.fetch",
            "EVENT imds.fetch",
            "END imds.fetch",
            "START user.create",
            "LOG kvprov-test",
            "END user.create",
            "END provision");
    Map<String, KvprovRecord> ends =
        records.stream()
            .filter(r -> r.kind() == KvprovRecord.Kind.END)
            .collect(Collectors.toMap(r -> r.name().orElseThrow(), Function.identity()));
    KvprovRecord root = ends.get("provision");
    KvprovRecord imds = ends.get("imds.fetch");
    KvprovRecord user = ends.get("user.create");
    assertThat(root.parentSpanId()).isEmpty();
    assertThat(imds.parentSpanId()).isEqualTo(root.spanId());
    assertThat(user.parentSpanId()).isEqualTo(root.spanId());
    assertThat(records)
        .extracting(r -> r.traceId().orElseThrow())
        .containsOnly(root.traceId().orElseThrow());
    assertThat(imds.status()).contains("unset"); // no error, nothing set: OpenTelemetry's UNSET
    assertThat(imds.level()).isEqualTo(KvprovRecord.Level.INFO);
    assertThat(imds.attributes().get(io.opentelemetry.api.common.AttributeKey.longKey("attempts")))
        .isEqualTo(2L);
    assertThat(user.status()).contains("error");
    assertThat(user.errorMessage()).contains("useradd exited 9");
    assertThat(user.level()).isEqualTo(KvprovRecord.Level.ERROR);
    assertThat(user.end().orElseThrow()).isAfterOrEqualTo(user.start().orElseThrow());
    // Seconds since boot: the fake uptime was 10 s when the clock was read.
    assertThat(root.sinceBoot().orElseThrow())
        .isBetween(Duration.ofSeconds(10), Duration.ofSeconds(70));
    assertThat(root.endSinceBoot().orElseThrow())
        .isGreaterThanOrEqualTo(user.endSinceBoot().orElseThrow());
    KvprovRecord event = records.get(2);
    assertThat(event.field(KvpRecordFormat.EVENT)).contains("retrying");
    assertThat(event.spanId()).isEqualTo(imds.spanId());
    KvprovRecord log = records.get(5);
    assertThat(log.field(KvpRecordFormat.BODY)).contains("useradd is slow");
    assertThat(log.spanId()).isEqualTo(user.spanId());
    assertThat(log.level()).isEqualTo(KvprovRecord.Level.WARN);
    // Keys carry the level and stay unique ignoring case.
    List<String> keys = harness.records().stream().map(KvpRecord::key).toList();
    assertThat(keys).allMatch(k -> k.startsWith("kvprov-1|" + Harness.VM_ID + "|"));
    assertThat(keys.stream().map(String::toLowerCase).distinct()).hasSize(keys.size());
    assertThat(keys)
        .filteredOn(k -> k.contains("|end|user.create|"))
        .allMatch(k -> k.contains("|ERROR|"));
  }

  @Test
  void theStderrMirror_showsEveryStartEndEventAndLog_asOneLineEach() throws Exception {
    try (KvpTelemetry telemetry = harness.telemetry().build()) {
      provision(telemetry);
    }

    List<String> lines = harness.stderr().lines().toList();
    assertThat(lines).hasSize(8);
    assertThat(lines.get(0)).matches("\\[ +\\d+\\.\\d{3}s\\] INFO  provision: started");
    assertThat(lines.get(1)).endsWith("INFO  provision/imds.fetch: started (attempts=2)");
    assertThat(lines.get(2)).endsWith("INFO  provision/imds.fetch: retrying (reason=timeout)");
    assertThat(lines.get(3)).matches(".*INFO  provision/imds\\.fetch: ok \\(\\d+\\.\\d{3}s\\)");
    assertThat(lines.get(5)).endsWith("WARN  provision/user.create: useradd is slow");
    assertThat(lines.get(6))
        .matches(".*ERROR provision/user\\.create: failed: useradd exited 9 \\(\\d+\\.\\d{3}s\\)");
    assertThat(lines).noneMatch(l -> l.startsWith("<"));
  }

  @Test
  void theMirrorLevel_filtersLines_butNotTheKvpRecords() throws Exception {
    try (KvpTelemetry telemetry =
        harness.telemetry().stderrLevel(KvprovRecord.Level.WARN).build()) {
      provision(telemetry);
      telemetry.logger().logRecordBuilder().setSeverity(Severity.DEBUG).setBody("detail").emit();
    }

    assertThat(harness.stderr().lines())
        .extracting(l -> l.replaceAll("^\\[[^]]*\\] ", ""))
        .containsExactly(
            "WARN  provision/user.create: useradd is slow",
            "ERROR provision/user.create: failed: useradd exited 9 "
                + lastParen(harness.stderr(), "user.create: failed"),
            "ERROR provision: failed: user.create failed "
                + lastParen(harness.stderr(), "provision: failed"));
    assertThat(harness.decoded()).hasSize(9);
  }

  private static String lastParen(String text, String marker) {
    String line = text.lines().filter(l -> l.contains(marker)).findFirst().orElseThrow();
    return line.substring(line.lastIndexOf('('));
  }

  @Test
  void theBudget_dropsDebugThenInfo_neverErrorsOrEndsOfWrittenStarts_andCountsTheDrops()
      throws Exception {
    try (KvpTelemetry telemetry = harness.telemetry().recordBudget(20).noStderrMirror().build()) {
      Span root = telemetry.tracer().spanBuilder("provision").startSpan(); // 1
      try (Scope ignored = root.makeCurrent()) {
        for (int i = 0; i < 12; i++) { // 9 written (to 10 = budget/2), 3 dropped
          telemetry.logger().logRecordBuilder().setSeverity(Severity.DEBUG).setBody("d" + i).emit();
        }
        for (int i = 0; i < 10; i++) { // 6 written (to 16 = 4/5), 4 dropped
          telemetry.logger().logRecordBuilder().setSeverity(Severity.INFO).setBody("i" + i).emit();
        }
        // step0 and step1: start and end each (to 20); the other four pairs are dropped.
        for (int i = 0; i < 6; i++) {
          telemetry.tracer().spanBuilder("step" + i).startSpan().end();
        }
        for (int i = 0; i < 3; i++) { // errors: always
          telemetry.logger().logRecordBuilder().setSeverity(Severity.ERROR).setBody("e" + i).emit();
        }
      }
      root.end(); // its start was written, so its end is too
      assertThat(telemetry.droppedRecords()).isEqualTo(3 + 4 + 8);
    }

    List<KvprovRecord> records = harness.decoded();
    assertThat(records).filteredOn(r -> r.level() == KvprovRecord.Level.DEBUG).hasSize(9);
    assertThat(records)
        .filteredOn(r -> r.field(KvpRecordFormat.BODY).orElse("").startsWith("i"))
        .hasSize(6);
    assertThat(records).filteredOn(r -> r.level() == KvprovRecord.Level.ERROR).hasSize(3);
    List<String> starts =
        records.stream()
            .filter(r -> r.kind() == KvprovRecord.Kind.START)
            .map(r -> r.name().orElseThrow())
            .toList();
    List<String> ends =
        records.stream()
            .filter(r -> r.kind() == KvprovRecord.Kind.END)
            .map(r -> r.name().orElseThrow())
            .toList();
    assertThat(starts).containsExactly("provision", "step0", "step1");
    assertThat(ends).containsExactly("step0", "step1", "provision");
    KvprovRecord dropped =
        records.stream()
            .filter(r -> r.kind() == KvprovRecord.Kind.DROPPED)
            .findFirst()
            .orElseThrow();
    assertThat(dropped.field(KvpRecordFormat.DROPPED))
        .contains("15 (debug=3, info=4, span=8) of a budget of 20");
    assertThat(records).filteredOn(r -> r.kind() == KvprovRecord.Kind.DROPPED).hasSize(1);
  }

  @Test
  void anEarlierRunThisBoot_hasAlreadySpentPartOfTheBudget() throws Exception {
    try (KvpTelemetry first = harness.telemetry().noStderrMirror().build()) {
      for (int i = 0; i < 5; i++) {
        first.tracer().spanBuilder("first" + i).startSpan().end();
      }
    }
    try (KvpTelemetry second = harness.telemetry().recordBudget(12).noStderrMirror().build()) {
      second.tracer().spanBuilder("second").startSpan().end();
      second.tracer().spanBuilder("third").startSpan().end();
      assertThat(second.droppedRecords()).as(harness.records().toString()).isEqualTo(2);
    }
  }

  @Test
  void aFailingKvpSink_isReportedOnce_andTracingGoesOn() throws Exception {
    Path blocker = dir.resolve("not-a-directory");
    Files.writeString(blocker, "x");
    PoolFile broken = PoolFile.open(blocker.resolve("hyperv"), 1);
    try (KvpTelemetry telemetry = harness.telemetry().kvp(broken).build()) {
      provision(telemetry);
      provision(telemetry);
      telemetry.report(
          ProvisioningReport.success("kvprov/0.0.1", Harness.VM_ID, java.time.Instant.now()));
    }

    String err = harness.stderr();
    assertThat(err.split("the KVP sink failed", -1)).hasSize(2);
    assertThat(err).contains("provisioning goes on");
    assertThat(err.lines().filter(l -> l.contains("provision: started"))).hasSize(2);
  }

  @Test
  void withoutKvpDiagnostics_thePoolGetsTheReportAlone() throws Exception {
    try (KvpTelemetry telemetry = harness.telemetry().kvpDiagnostics(false).build()) {
      provision(telemetry);
      telemetry.report(
          ProvisioningReport.success("kvprov/0.0.1", Harness.VM_ID, java.time.Instant.now()));
    }

    assertThat(harness.records())
        .extracting(dev.kvprov.kvp.KvpRecord::key)
        .containsExactly("PROVISIONING_REPORT");
    assertThat(harness.stderr()).contains("provision: started");
  }

  @Test
  void theReport_isOneRecord_replacedNotRepeated_andNeverDroppedByTheBudget() throws Exception {
    try (KvpTelemetry telemetry = harness.telemetry().recordBudget(10).build()) {
      for (int i = 0; i < 20; i++) {
        telemetry.tracer().spanBuilder("s" + i).startSpan().end();
      }
      telemetry.report(
          ProvisioningReport.failure(
              "User creation failed",
              "kvprov/0.0.1",
              Harness.VM_ID,
              java.time.Instant.now(),
              Map.of("step", "user.create")));
      telemetry.report(
          ProvisioningReport.success("kvprov/0.0.1", Harness.VM_ID, java.time.Instant.now()));
    }

    List<KvpRecord> reports =
        harness.records().stream().filter(r -> r.key().equals("PROVISIONING_REPORT")).toList();
    assertThat(reports).hasSize(1);
    assertThat(ProvisioningReport.parse(reports.get(0).value()).isSuccess()).isTrue();
    assertThat(harness.stderr())
        .contains("ERROR PROVISIONING_REPORT: result=error|reason=User creation failed");
  }

  @Test
  void closing_isIdempotent_andLaterSpansWriteNothing() throws Exception {
    KvpTelemetry telemetry = harness.telemetry().noStderrMirror().build();
    telemetry.tracer().spanBuilder("before").startSpan().end();
    telemetry.close();
    telemetry.close();
    telemetry.tracer().spanBuilder("after").startSpan().end();

    assertThat(harness.decoded())
        .extracting(r -> r.name().orElseThrow())
        .containsExactly("before", "before");
  }
}
