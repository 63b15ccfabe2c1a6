package dev.kvprov.inspect;

import dev.kvprov.fixtures.Fixtures;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ArbitrarySupplier;
import net.jqwik.api.Tuple;

/** Hostile input for the property tests: every writer's records, damaged in every way. */
final class HostilePools {
  private HostilePools() {}

  /** Pools, for {@code @ForAll(supplier = HostilePools.Pools.class)}. */
  static final class Pools implements ArbitrarySupplier<byte[]> {
    @Override
    public Arbitrary<byte[]> get() {
      return pools(seedPool());
    }
  }

  /** Host exports, for {@code @ForAll(supplier = HostilePools.Exports.class)}. */
  static final class Exports implements ArbitrarySupplier<String> {
    @Override
    public Arbitrary<String> get() {
      try {
        return exports(seedPool());
      } catch (Exception e) {
        throw new IllegalStateException("cannot write the seed export", e);
      }
    }
  }

  /**
   * Every writer's records (the cloud-init fixture, azure-init's byte-cut pieces, kvprov's split
   * spans and a report), as CIM-XML lines or a JSON array, mutated or cut short.
   */
  private static Arbitrary<String> exports(byte[] seed) throws Exception {
    List<String> lines = new java.util.ArrayList<>();
    for (dev.kvprov.kvp.PoolEntry e : dev.kvprov.kvp.RecordCodec.decode(seed).entries()) {
      lines.add(HostExportTest.instance(e.key(), e.value(), lines.size() % 2 == 0));
    }
    String text = String.join("\n", lines);
    String json = new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(lines);
    return Arbitraries.of(text, json)
        .flatMap(
            base ->
                Arbitraries.frequencyOf(
                    Tuple.of(
                        3,
                        Arbitraries.integers()
                            .between(0, base.length() - 1)
                            .list()
                            .ofMinSize(1)
                            .ofMaxSize(20)
                            .flatMap(
                                at ->
                                    Arbitraries.of('<', '>', '&', '"', '[', ']', ',', 'x', '\\')
                                        .list()
                                        .ofSize(at.size())
                                        .map(
                                            chars -> {
                                              char[] copy = base.toCharArray();
                                              for (int i = 0; i < at.size(); i++) {
                                                copy[at.get(i)] = chars.get(i);
                                              }
                                              return new String(copy);
                                            }))),
                    Tuple.of(
                        1,
                        Arbitraries.integers()
                            .between(0, base.length())
                            .map(n -> base.substring(0, n)))));
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
                    new dev.kvprov.otel.KvprovRecord.Field("Start", "2026-11-22T04:47:46.000Z"),
                    new dev.kvprov.otel.KvprovRecord.Field("End", "2026-11-22T04:47:47.000Z"),
                    new dev.kvprov.otel.KvprovRecord.Field("Boot", "3.000-4.000"),
                    new dev.kvprov.otel.KvprovRecord.Field("Status", "error"),
                    new dev.kvprov.otel.KvprovRecord.Field("Span", "0123456789abcdef"),
                    new dev.kvprov.otel.KvprovRecord.Field("Name", "create user"),
                    new dev.kvprov.otel.KvprovRecord.Field("Error", "x".repeat(1500))),
                io.opentelemetry.api.common.Attributes.empty()))) {
      raw.add(r.key(), r.value());
    }
    raw.add("PROVISIONING_REPORT", "result=error|reason=useradd failed|agent=kvprov/0.1.0");
    out.writeBytes(raw.bytes());
    return out.toByteArray();
  }

  /** Every writer's records with bytes flipped, cut short or pieces shuffled, or pure noise. */
  private static Arbitrary<byte[]> pools(byte[] fixture) {
    Arbitrary<byte[]> mutated =
        Arbitraries.integers()
            .between(0, fixture.length - 1)
            .list()
            .ofMinSize(1)
            .ofMaxSize(40)
            .flatMap(
                positions ->
                    Arbitraries.bytes()
                        .list()
                        .ofSize(positions.size())
                        .map(
                            values -> {
                              byte[] copy = fixture.clone();
                              for (int i = 0; i < positions.size(); i++) {
                                copy[positions.get(i)] = values.get(i);
                              }
                              return copy;
                            }));
    Arbitrary<byte[]> truncated =
        Arbitraries.integers()
            .between(0, fixture.length)
            .map(n -> java.util.Arrays.copyOf(fixture, n));
    Arbitrary<byte[]> noise = Arbitraries.bytes().array(byte[].class).ofMaxSize(3 * 2560 + 17);
    return Arbitraries.frequencyOf(
        Tuple.of(5, mutated), Tuple.of(2, truncated), Tuple.of(2, noise));
  }
}
