package dev.kvprov.agent;

import dev.kvprov.agent.config.AgentConfig;
import dev.kvprov.agent.logging.Logging;
import dev.kvprov.agent.os.SystemRoot;
import dev.kvprov.agent.state.VerdictGenerations;
import dev.kvprov.kvp.BootClock;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.VmId;
import dev.kvprov.otel.KvpTelemetry;
import dev.kvprov.otel.KvprovRecord;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** The agent's telemetry, set up from its configuration (sinks, budget, archive, mirror level). */
final class Telemetry {
  private Telemetry() {}

  static KvpTelemetry from(AgentConfig config, SystemRoot root, VmId vmId, PrintStream err) {
    return from(config, root, vmId, err, verdicts(config, root));
  }

  /**
   * For the commands that write a {@code PROVISIONING_REPORT}: {@code verdicts} is where their
   * {@code PlatformReport} takes each report's number, which a late writer carries.
   */
  static KvpTelemetry from(
      AgentConfig config,
      SystemRoot root,
      VmId vmId,
      PrintStream err,
      VerdictGenerations verdicts) {
    return from(config, root, vmId, err, KvprovRecord.Level.DEBUG, verdicts);
  }

  /** Where this machine numbers its reports: the state directory. */
  static VerdictGenerations verdicts(AgentConfig config, SystemRoot root) {
    return VerdictGenerations.in(root.resolve(config.stateDirectory().toString()));
  }

  /**
   * For the commands whose output is data (metadata, render-ignition, clean): traced into KVP the
   * same, but their stderr says only warnings and errors, whatever the configured level.
   */
  static KvpTelemetry quiet(AgentConfig config, SystemRoot root, VmId vmId, PrintStream err) {
    return from(config, root, vmId, err, KvprovRecord.Level.WARN, verdicts(config, root));
  }

  private static KvpTelemetry from(
      AgentConfig config,
      SystemRoot root,
      VmId vmId,
      PrintStream err,
      KvprovRecord.Level floor,
      VerdictGenerations verdicts) {
    AgentConfig.Telemetry t = config.telemetry();
    // logback writes the stderr lines: set up in code, or from the root's logback.xml.
    Logging.configure(root.resolve(Logging.CONFIG_FILE), err, System.getenv());
    StartupPhases.mark("logging");
    KvpTelemetry.Builder builder =
        KvpTelemetry.builder()
            .serviceName("kvprov")
            .serviceVersion(KvprovCommand.VERSION)
            .vmId(vmId)
            .stderr(err)
            .recordBudget(t.recordBudget());
    Optional<Instant> bootTime = Optional.empty();
    try {
      BootClock clock = BootClock.read(root.isLive() ? root.path() : Path.of("/"));
      builder.bootClock(clock);
      bootTime = Optional.of(clock.bootTime());
    } catch (IOException e) {
      err.println("kvprov: no boot clock: " + e.getMessage());
    }
    Path archive = root.resolve(t.archiveDirectory().toString());
    // The pool always gets the PROVISIONING_REPORT (the platform reads it); the diagnostics
    // setting decides whether the trace goes there too.
    builder
        .kvp(
            PoolFile.builder()
                .directory(root.resolve(t.kvpDirectory().toString()))
                .lockTimeout(t.kvpLockTimeout())
                .archive(archive, PoolFile.DEFAULT_ARCHIVE_KEEP)
                .build())
        .kvpDiagnostics(t.kvp())
        .diagRecords(t.diagRecords());
    if (!t.lateRecordsWait().isZero()) {
      builder.lateRecordWriter(
          new BackgroundPoolWriter(
              t.lateRecordsWait(),
              Optional.of(archive),
              bootTime,
              root.resolve(config.stateDirectory().toString()).resolve("late-records.log"),
              System.getenv(),
              verdicts));
    }
    if (t.stderrLevel().equals("off")) {
      builder.noStderrMirror();
    } else {
      builder
          .stderrLevel(
              max(KvprovRecord.Level.valueOf(t.stderrLevel().toUpperCase(Locale.ROOT)), floor))
          .stderrLines(Logging.mirrorLines());
    }
    if (!t.otlpEndpoint().isBlank()) {
      builder.otlpEndpoint(t.otlpEndpoint());
    }
    // The agent owns the VM's pool and its JVM: an earlier boot's records are archived and
    // cleared before the first span, the SDK's own trouble is said once, and SIGTERM flushes.
    KvpTelemetry built = builder.build();
    StartupPhases.mark("sdk");
    KvpTelemetry telemetry = built.clearStalePool().reportSdkLogging().closeOnShutdown();
    StartupPhases.mark("pool");
    // The program's log events become records of this telemetry: KVP, OTLP and the mirror.
    Logging.sendTo(telemetry);
    return telemetry;
  }

  /**
   * For {@link Warmup}: the SDK's tracer and logger providers built, a span and a log record sent
   * through them, on a telemetry with no sink at all (no pool, no mirror, no OTLP whatever the
   * environment says): the classes a first boot's telemetry needs, loaded and initialised.
   */
  static void warmUp() {
    try (KvpTelemetry idle =
        KvpTelemetry.builder().environment(Map.of()).noStderrMirror().build()) {
      idle.tracer().spanBuilder("warm-up").startSpan().end();
      idle.logger().logRecordBuilder().setBody("warm-up").emit();
    }
  }

  private static KvprovRecord.Level max(KvprovRecord.Level a, KvprovRecord.Level b) {
    return a.compareTo(b) >= 0 ? a : b;
  }
}
