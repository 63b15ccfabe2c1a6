package dev.kvprov.agent;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import dev.kvprov.agent.config.ConfigLoader;
import dev.kvprov.agent.imds.ImdsClient;
import dev.kvprov.agent.logging.Logging;
import dev.kvprov.agent.ovf.OvfParser;
import dev.kvprov.otel.KvpTelemetry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** The warm-up's steps: they succeed, print nothing, and leave the process's logging as it was. */
class WarmupTest {
  @TempDir Path dir;

  @Test
  void everyStepRunsAndNothingIsPrinted() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream stdout = System.out;
    PrintStream stderr = System.err;
    System.setOut(new PrintStream(out, true, UTF_8));
    System.setErr(new PrintStream(err, true, UTF_8));
    try {
      // each step on its own, so that one that throws is named here (Warmup.run swallows it)
      ConfigLoader.warmUp();
      Logging.warmUp();
      ImdsClient.warmUp();
      OvfParser.warmUp();
      Warmup.run();
    } finally {
      System.setOut(stdout);
      System.setErr(stderr);
    }
    assertThat(out.toString(UTF_8)).isEmpty();
    assertThat(err.toString(UTF_8)).isEmpty();
  }

  @Test
  void theTelemetryStep_printsNothing() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream stderr = System.err;
    System.setErr(new PrintStream(err, true, UTF_8));
    try {
      Telemetry.warmUp();
    } finally {
      System.setErr(stderr);
    }
    assertThat(err.toString(UTF_8)).isEmpty();
  }

  @Test
  void loggingIsConfiguredAsUsualAfterTheWarmUp() throws Exception {
    Logging.warmUp();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Logging.configure(
        dir.resolve("no-logback.xml"), new PrintStream(err, true, UTF_8), java.util.Map.of());
    LoggerFactory.getLogger("warm-up-test").warn("after the warm-up");
    assertThat(err.toString(UTF_8)).contains("after the warm-up");
  }

  @Test
  void aWarmUpAfterTheSetUpLeavesNoSecondWayToStderr() throws Exception {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Logging.configure(
        dir.resolve("no-logback.xml"), new PrintStream(err, true, UTF_8), java.util.Map.of());
    Logging.warmUp(); // late, as on a slow machine: after the main thread set logging up
    try (KvpTelemetry telemetry =
        KvpTelemetry.builder().noStderrMirror().environment(java.util.Map.of()).build()) {
      Logging.sendTo(telemetry);
      // the telemetry has the root logger's events now: none go to stderr directly
      LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
      assertThat(context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("stderr")).isNull();
      LoggerFactory.getLogger("warm-up-test").warn("only through the telemetry");
    }
    assertThat(err.toString(UTF_8)).doesNotContain("only through the telemetry");
  }

  @Test
  void onlyProvisionGetsAHeadStart() {
    assertThat(Warmup.wanted(new String[] {"provision", "--root", "/mnt"})).isTrue();
    assertThat(Warmup.wanted(new String[] {"provision", "--help"})).isFalse();
    assertThat(Warmup.wanted(new String[] {"status"})).isFalse();
    assertThat(Warmup.wanted(new String[0])).isFalse();
  }
}
