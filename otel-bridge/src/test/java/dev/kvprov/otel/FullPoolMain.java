package dev.kvprov.otel;

import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.VmId;
import java.nio.file.Path;
import java.time.Instant;

/**
 * A run whose pool's disk fills up on the way, for a test to run on a full file system: six spans
 * (twelve records, of which six fit), the report, then every key in the pool and the report's
 * value, one per line.
 *
 * <p>Usage: {@code FullPoolMain POOL_DIR}.
 */
public final class FullPoolMain {
  private FullPoolMain() {}

  public static void main(String[] args) throws Exception {
    PoolFile pool = PoolFile.open(Path.of(args[0]), 1);
    VmId vm = new VmId(Harness.VM_ID, "test");
    try (KvpTelemetry telemetry =
        KvpTelemetry.builder()
            .serviceName("kvprov-full-pool-test")
            .vmId(vm)
            .kvp(pool)
            .noStderrMirror()
            .environment(java.util.Map.of())
            .build()) {
      for (String step : new String[] {"a", "b", "c", "d", "e", "f"}) {
        telemetry.tracer().spanBuilder("step." + step).startSpan().end();
      }
      telemetry.report(ProvisioningReport.success("kvprov/test", vm.value(), Instant.EPOCH));
    }
    for (KvpRecord record : pool.read().records()) {
      System.out.println(
          "key "
              + record.key()
              + (record.key().equals("PROVISIONING_REPORT") ? " = " + record.value() : ""));
    }
  }
}
