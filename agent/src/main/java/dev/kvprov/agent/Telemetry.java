package dev.kvprov.agent;

import dev.kvprov.agent.config.AgentConfig;
import dev.kvprov.agent.os.SystemRoot;
import dev.kvprov.kvp.BootClock;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.VmId;
import dev.kvprov.otel.KvpTelemetry;
import dev.kvprov.otel.KvprovRecord;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Locale;

/** The agent's telemetry, set up from its configuration (sinks, budget, archive, mirror level). */
final class Telemetry {
  private Telemetry() {}

  static KvpTelemetry from(AgentConfig config, SystemRoot root, VmId vmId, PrintStream err) {
    AgentConfig.Telemetry t = config.telemetry();
    KvpTelemetry.Builder builder =
        KvpTelemetry.builder()
            .serviceName("kvprov")
            .serviceVersion(KvprovCommand.VERSION)
            .vmId(vmId)
            .stderr(err)
            .recordBudget(t.recordBudget());
    try {
      builder.bootClock(BootClock.read(root.isLive() ? root.path() : java.nio.file.Path.of("/")));
    } catch (IOException e) {
      err.println("kvprov: no boot clock: " + e.getMessage());
    }
    // The pool always gets the PROVISIONING_REPORT (the platform reads it); the diagnostics
    // setting decides whether the trace goes there too.
    builder
        .kvp(
            PoolFile.builder()
                .directory(root.resolve(t.kvpDirectory().toString()))
                .archive(
                    root.resolve(t.archiveDirectory().toString()), PoolFile.DEFAULT_ARCHIVE_KEEP)
                .build())
        .kvpDiagnostics(t.kvp());
    if (t.stderrLevel().equals("off")) {
      builder.noStderrMirror();
    } else {
      builder.stderrLevel(KvprovRecord.Level.valueOf(t.stderrLevel().toUpperCase(Locale.ROOT)));
    }
    if (!t.otlpEndpoint().isBlank()) {
      builder.otlpEndpoint(t.otlpEndpoint());
    }
    return builder.build();
  }
}
