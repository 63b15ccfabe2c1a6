package dev.kvprov.otel;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The stderr mirror's lines: their levels, their journal priorities, and where they go. */
class StderrMirrorTest {
  @TempDir Path dir;
  private Harness harness;

  @BeforeEach
  void setUp() throws Exception {
    harness = new Harness(dir);
  }

  /** Two attempts: the first fails and is tried again, the second fails for good. */
  private static void attempts(KvpTelemetry telemetry) {
    Span first = telemetry.tracer().spanBuilder("imds.attempt").startSpan();
    first.setAttribute(KvprovAttributes.WARNING, "IMDS answered HTTP 503; trying again in 0.2 s");
    first.end();
    Span last = telemetry.tracer().spanBuilder("imds.attempt").startSpan();
    last.setStatus(StatusCode.ERROR, "IMDS answered HTTP 503");
    last.end();
  }

  @Test
  void aSpanThatWarned_endsAsAWarnLine_andAWarnRecord_notAnError() throws Exception {
    try (KvpTelemetry telemetry = harness.telemetry().build()) {
      attempts(telemetry);
    }

    assertThat(harness.stderr().lines().filter(l -> !l.contains(": started")))
        .extracting(l -> l.replaceAll("^\\[ +\\d+\\.\\d{3}s\\] ", "").replaceAll(" \\(.*s\\)$", ""))
        .containsExactly(
            "WARN  imds.attempt: warning: IMDS answered HTTP 503; trying again in 0.2 s",
            "ERROR imds.attempt: failed: IMDS answered HTTP 503");
    List<KvprovRecord> ends =
        harness.decoded().stream().filter(r -> r.kind() == KvprovRecord.Kind.END).toList();
    assertThat(ends)
        .extracting(KvprovRecord::level, r -> r.status().orElseThrow())
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(KvprovRecord.Level.WARN, "unset"),
            org.assertj.core.groups.Tuple.tuple(KvprovRecord.Level.ERROR, "error"));
    assertThat(ends.get(0).warning()).contains("IMDS answered HTTP 503; trying again in 0.2 s");
    assertThat(ends.get(0).errorMessage()).isEmpty();
    assertThat(ends.get(1).warning()).isEmpty();
  }

  @Test
  void aWarning_isRedactedLikeAnError() throws Exception {
    try (KvpTelemetry telemetry = harness.telemetry().secret("hunter2").build()) {
      Span span = telemetry.tracer().spanBuilder("step").startSpan();
      span.setAttribute(KvprovAttributes.WARNING, "the password hunter2 was refused");
      span.end();
    }

    assertThat(harness.stderr()).contains("warning: the password ").doesNotContain("hunter2");
    assertThat(new String(harness.poolBytes(), java.nio.charset.StandardCharsets.UTF_8))
        .contains("the password ")
        .doesNotContain("hunter2");
  }

  @Test
  void journalText_startsWithTheSyslogPriority_ofEachLevel() {
    assertThat(
            List.of(
                new StderrLine(KvprovRecord.Level.ERROR, "1.000s", "a: b").journalText(),
                new StderrLine(KvprovRecord.Level.WARN, "1.000s", "a: b").journalText(),
                new StderrLine(KvprovRecord.Level.INFO, "1.000s", "a: b").journalText(),
                new StderrLine(KvprovRecord.Level.DEBUG, "1.000s", "a: b").journalText()))
        .containsExactly(
            "<3>[     1.000s] ERROR a: b",
            "<4>[     1.000s] WARN  a: b",
            "<6>[     1.000s] INFO  a: b",
            "<7>[     1.000s] DEBUG a: b");
  }

  @Test
  void text_isOneLine_whateverTheMessageHolds() {
    assertThat(new StderrLine(KvprovRecord.Level.INFO, "12.345s", "a: one\ntwo\rthree").text())
        .isEqualTo("[    12.345s] INFO  a: one\\ntwo\\rthree");
  }

  @Test
  void stderrIsJournal_onlyWhenJournalStreamNamesWhatFd2Is() throws Exception {
    Path other = Files.createFile(dir.resolve("not-stderr"));
    String otherId =
        Files.getAttribute(other, "unix:dev") + ":" + Files.getAttribute(other, "unix:ino");

    assertThat(StderrLine.stderrIsJournal(Map.of())).isFalse();
    assertThat(StderrLine.stderrIsJournal(Map.of("JOURNAL_STREAM", "not:numbers"))).isFalse();
    assertThat(StderrLine.stderrIsJournal(Map.of("JOURNAL_STREAM", otherId))).isFalse();
  }

  @Test
  void aSink_getsTheLinesInsteadOfStderr_alreadyRedacted() throws Exception {
    List<StderrLine> lines = new ArrayList<>();
    try (KvpTelemetry telemetry =
        harness.telemetry().secret("hunter2").stderrLines(lines::add).build()) {
      attempts(telemetry);
      telemetry
          .logger()
          .logRecordBuilder()
          .setSeverity(io.opentelemetry.api.logs.Severity.INFO)
          .setBody("hunter2 is set")
          .emit();
    }

    assertThat(harness.stderr()).isEmpty();
    assertThat(lines)
        .extracting(StderrLine::level)
        .containsExactly(
            KvprovRecord.Level.INFO,
            KvprovRecord.Level.WARN,
            KvprovRecord.Level.INFO,
            KvprovRecord.Level.ERROR,
            KvprovRecord.Level.INFO);
    assertThat(lines.get(4).what()).isEqualTo("kvprov-test: " + Redactor.MASK + " is set");
    assertThat(lines).allMatch(l -> l.time().matches("\\d+\\.\\d{3}s"));
  }

  @Test
  void aSinkThatThrows_isReportedOnce_andTheRecordsStillReachKvp() throws Exception {
    try (KvpTelemetry telemetry =
        harness
            .telemetry()
            .stderrLines(
                line -> {
                  throw new IllegalStateException("the console is gone");
                })
            .build()) {
      attempts(telemetry);
    }

    assertThat(harness.stderr().lines())
        .containsExactly(
            "kvprov telemetry: the stderr sink failed: the console is gone (provisioning goes on;"
                + " further stderr failures are only counted)");
    assertThat(harness.decoded()).hasSize(4);
  }
}
