package dev.kvprov.inspect;

import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.VmId;
import dev.kvprov.otel.KvpTelemetry;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.Map;

/** Our own exporter writing into one pool only: no stderr mirror, no environment. */
public final class QuietTelemetry {
  private QuietTelemetry() {}

  /** A builder with those settings and an unknown VM id; callers may set more before build(). */
  public static KvpTelemetry.Builder into(PoolFile pool) {
    return KvpTelemetry.builder()
        .vmId(new VmId(VmId.UNKNOWN, "test"))
        .kvp(pool)
        .noStderrMirror()
        .stderr(new PrintStream(OutputStream.nullOutputStream()))
        .environment(Map.of());
  }
}
