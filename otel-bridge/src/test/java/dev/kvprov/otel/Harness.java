package dev.kvprov.otel;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvprov.kvp.BootClock;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.VmId;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** A pool, a fake boot clock, a captured stderr, and a telemetry builder wired to them. */
final class Harness {
  static final String VM_ID = "00840e55-9be2-d441-a716-446655440000";

  final Path dir;
  final PoolFile pool;
  final ByteArrayOutputStream stderrBytes = new ByteArrayOutputStream();
  final PrintStream stderr = new PrintStream(stderrBytes, true, UTF_8);
  final BootClock bootClock;

  Harness(Path dir) throws IOException {
    this.dir = dir;
    this.pool = PoolFile.open(dir.resolve("hyperv"), 1);
    Path root = dir.resolve("root");
    Files.createDirectories(root.resolve("proc/sys/kernel/random"));
    Files.writeString(root.resolve("proc/stat"), "btime 1795322355\n");
    Files.writeString(root.resolve("proc/uptime"), "10.00 5.00\n");
    Files.writeString(
        root.resolve("proc/sys/kernel/random/boot_id"), "3f2504e0-4f89-11d3-9a0c-0305e82c3301\n");
    this.bootClock = BootClock.read(root);
  }

  KvpTelemetry.Builder telemetry() {
    return KvpTelemetry.builder()
        .serviceName("kvprov-test")
        .serviceVersion("0.0.1")
        .vmId(new VmId(VM_ID, "test"))
        .bootClock(bootClock)
        .kvp(pool)
        .stderr(stderr)
        .environment(Map.of())
        // A test of delivery must not race the bound on a loaded machine (the first export
        // loads the HTTP client's classes); a test of the bound sets its own.
        .otlpTimeout(DELIVERY_TIMEOUT);
  }

  /** What a test that expects its spans at a healthy collector gives OTLP. */
  static final java.time.Duration DELIVERY_TIMEOUT = java.time.Duration.ofSeconds(30);

  List<KvpRecord> records() throws IOException {
    return pool.read().records();
  }

  List<KvprovRecord> decoded() throws IOException {
    KvpRecordFormat.Decoded decoded = KvpRecordFormat.decode(records());
    if (!decoded.problems().isEmpty()) {
      throw new AssertionError("undecodable records: " + decoded.problems());
    }
    return decoded.records().stream().map(KvpRecordFormat.DecodedRecord::record).toList();
  }

  String stderr() {
    return stderrBytes.toString(UTF_8);
  }

  byte[] poolBytes() throws IOException {
    return Files.exists(pool.path()) ? Files.readAllBytes(pool.path()) : new byte[0];
  }
}
