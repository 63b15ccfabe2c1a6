package dev.kvprov.otel;

import dev.kvprov.kvp.BootClock;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.VmId;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import java.nio.file.Path;

/**
 * A program that uses kvprov telemetry the way the agent does, for tests that need a whole process:
 * killed mid-step, stopped by SIGTERM, writing to the journal, or facing a dead collector.
 *
 * <p>Usage: {@code TelemetryProcessMain MODE POOL_DIR [OTLP_URL]} with MODE one of {@code hang},
 * {@code sigterm}, {@code once}.
 */
public final class TelemetryProcessMain {
  private TelemetryProcessMain() {}

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    KvpTelemetry.Builder builder =
        KvpTelemetry.builder()
            .serviceName("kvprov-process-test")
            .vmId(VmId.system())
            .bootClock(BootClock.system())
            .kvp(PoolFile.open(Path.of(args[1]), 1));
    if (args.length > 2) {
      // Generous: the property is that the hook delivers, not how fast on a loaded machine.
      builder.otlpEndpoint(args[2]).otlpTimeout(java.time.Duration.ofSeconds(30));
    }
    // A program that owns its VM's pool and its JVM: the three explicit steps.
    KvpTelemetry telemetry = builder.build().clearStalePool().reportSdkLogging().closeOnShutdown();
    switch (mode) {
      case "hang" -> {
        Span root = telemetry.tracer().spanBuilder("provision").startSpan();
        try (Scope ignored = root.makeCurrent()) {
          telemetry.tracer().spanBuilder("media.read_ovf").startSpan();
          System.out.println("started");
          System.out.flush();
          Thread.sleep(Long.MAX_VALUE); // a step that never returns
        }
      }
      case "sigterm" -> {
        telemetry.tracer().spanBuilder("before-sigterm").startSpan().end();
        System.out.println("ready");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE); // the shutdown hook must flush what is queued
      }
      case "once" -> {
        telemetry.tracer().spanBuilder("once").startSpan().end();
        telemetry.close();
        System.out.println("closed");
      }
      default -> throw new IllegalArgumentException(mode);
    }
  }
}
