package dev.kvprov.inspect;

import dev.kvprov.fixtures.Fixtures;
import dev.kvprov.fixtures.Trials;
import dev.kvprov.inspect.pool.HostExportTest;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Hostile input for the seeded random tests, and the seeds of the fuzz tests: every writer's
 * records, damaged in every way.
 */
public final class HostilePools {
  private HostilePools() {}

  /** Every writer's records, undamaged: what {@link #pool} and {@link #export} damage. */
  static final byte[] SEED_POOL = seedPool();

  /** {@link #SEED_POOL} as CIM-XML lines, then as a JSON array. */
  static final List<String> SEED_EXPORTS = seedExports(SEED_POOL);

  /**
   * Every writer's records with bytes flipped (5 in 9), cut short (2 in 9), or pure noise (2 in 9).
   */
  public static byte[] pool(SplittableRandom r) {
    byte[] fixture = SEED_POOL;
    int pick = r.nextInt(9);
    if (pick < 5) {
      byte[] copy = fixture.clone();
      int changes = Trials.size(r, 1, 40);
      for (int i = 0; i < changes; i++) {
        copy[Trials.between(r, 0, fixture.length - 1)] = (byte) r.nextInt(256);
      }
      return copy;
    }
    if (pick < 7) {
      return java.util.Arrays.copyOf(fixture, Trials.between(r, 0, fixture.length));
    }
    byte[] noise = new byte[Trials.size(r, 0, 3 * 2560 + 17)];
    r.nextBytes(noise);
    return noise;
  }

  /**
   * Every writer's records (the cloud-init fixture, azure-init's byte-cut pieces, kvprov's split
   * spans and a report), as CIM-XML lines or a JSON array, with 1 to 20 characters changed to
   * markup (3 in 4) or cut short (1 in 4).
   */
  static String export(SplittableRandom r) {
    String base = SEED_EXPORTS.get(r.nextInt(SEED_EXPORTS.size()));
    if (r.nextInt(4) < 3) {
      char[] copy = base.toCharArray();
      int changes = Trials.size(r, 1, 20);
      for (int i = 0; i < changes; i++) {
        copy[Trials.between(r, 0, base.length() - 1)] =
            Trials.oneOf(r, '<', '>', '&', '"', '[', ']', ',', 'x', '\\');
      }
      return new String(copy);
    }
    return base.substring(0, Trials.between(r, 0, base.length()));
  }

  private static List<String> seedExports(byte[] seed) {
    try {
      List<String> lines = new java.util.ArrayList<>();
      for (dev.kvprov.kvp.PoolEntry e : dev.kvprov.kvp.RecordCodec.decode(seed).entries()) {
        lines.add(HostExportTest.instance(e.key(), e.value(), lines.size() % 2 == 0));
      }
      return List.of(
          String.join("\n", lines),
          new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(lines));
    } catch (Exception e) {
      throw new IllegalStateException("cannot write the seed export", e);
    }
  }

  /**
   * The cloud-init fixture, azure-init's diagnostic fixture, an azure-init value cut inside a
   * character, kvprov's spans.
   */
  private static byte[] seedPool() {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    out.writeBytes(Fixtures.bytes(Fixtures.CLOUD_INIT_POOL));
    out.writeBytes(Fixtures.bytes(Fixtures.AZURE_INIT_DIAG_POOL));
    byte[] azure =
        ("Time: 2024-06-01T10:00:02.000Z | Event: " + "é".repeat(700))
            .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    String azureKey = "azure-init-0.1.1|vm|ERROR|provision:user|0c1f9b1e";
    RawPool raw = new RawPool();
    for (int at = 0; at < azure.length; at += 1022) {
      raw.add(
          azureKey.getBytes(java.nio.charset.StandardCharsets.UTF_8),
          java.util.Arrays.copyOfRange(azure, at, Math.min(at + 1022, azure.length)));
    }
    raw.add(
        "azure-init-0.1.1|vm|INFO|provision|1",
        "Start: 2024-06-01T10:00:00Z | End: 2024-06-01T10:00:09Z");
    for (dev.kvprov.kvp.KvpRecord r :
        dev.kvprov.otel.KvpRecordFormat.encode(
            new dev.kvprov.otel.KvprovRecord(
                dev.kvprov.otel.KvprovRecord.Kind.END,
                dev.kvprov.otel.KvprovRecord.Level.ERROR,
                "unknown",
                "0123456789abcdef",
                List.of(
                    new dev.kvprov.otel.KvprovRecord.Field(
                        dev.kvprov.otel.KvpRecordFormat.START, "2026-11-22T04:47:46.000Z"),
                    new dev.kvprov.otel.KvprovRecord.Field(
                        dev.kvprov.otel.KvpRecordFormat.END, "2026-11-22T04:47:47.000Z"),
                    new dev.kvprov.otel.KvprovRecord.Field("Boot", "3.000-4.000"),
                    new dev.kvprov.otel.KvprovRecord.Field(
                        dev.kvprov.otel.KvpRecordFormat.STATUS, "error"),
                    new dev.kvprov.otel.KvprovRecord.Field(
                        dev.kvprov.otel.KvpRecordFormat.SPAN, "0123456789abcdef"),
                    new dev.kvprov.otel.KvprovRecord.Field(
                        dev.kvprov.otel.KvpRecordFormat.NAME, "create user"),
                    new dev.kvprov.otel.KvprovRecord.Field(
                        dev.kvprov.otel.KvpRecordFormat.ERROR, "x".repeat(1500))),
                io.opentelemetry.api.common.Attributes.empty()))) {
      raw.add(r.key(), r.value());
    }
    raw.add("PROVISIONING_REPORT", "result=error|reason=useradd failed|agent=kvprov/0.1.0");
    out.writeBytes(raw.bytes());
    return out.toByteArray();
  }
}
