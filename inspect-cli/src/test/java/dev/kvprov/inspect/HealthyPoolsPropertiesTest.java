package dev.kvprov.inspect;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.fixtures.Fixtures;
import dev.kvprov.fixtures.Trials;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.otel.KvpRecordFormat;
import dev.kvprov.otel.KvprovRecord;
import dev.kvprov.otel.ProvisioningReport;
import io.opentelemetry.api.common.Attributes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * No false findings: a pool that every writer filled the way it writes — kvprov's split records,
 * cloud-init's chunked events, azure-init's values cut every 1,022 bytes, the report — is healthy,
 * whatever the texts and the order; but for the one true finding such a pool can have: where
 * azure-init cut inside a character, the host (which converts each record on its own) loses it.
 */
class HealthyPoolsPropertiesTest {

  /**
   * One writer's turn at the pool: its records' key and value bytes, in its own order; none for
   * cloud-init's (the fixture, written by its real handler).
   */
  private record Turn(List<byte[][]> records, List<Integer> cutInsideACharacter) {
    /** Records no cut of which falls inside a character. */
    Turn(List<byte[][]> records) {
      this(records, List.of());
    }

    static Turn of(List<KvpRecord> records) {
      return new Turn(
          records.stream()
              .map(r -> new byte[][] {r.key().getBytes(UTF_8), r.value().getBytes(UTF_8)})
              .toList());
    }
  }

  @Test
  void aPoolOfEveryWritersValidRecords_isHealthy() {
    Trials.run(60, r -> aPoolOfTheseTurnsIsHealthy(turns(r)));
  }

  private static void aPoolOfTheseTurnsIsHealthy(List<Turn> turns) throws Exception {
    RawPool raw = new RawPool();
    boolean cloudInit = false;
    int records = 0;
    List<String> lost = new java.util.ArrayList<>();
    for (Turn turn : turns) {
      boolean fixture = turn.records().isEmpty();
      if (fixture && !cloudInit) {
        raw.addBytes(Fixtures.bytes(Fixtures.CLOUD_INIT_POOL));
        records += Fixtures.bytes(Fixtures.CLOUD_INIT_POOL).length / 2560;
        cloudInit = true;
      }
      for (int piece : turn.cutInsideACharacter()) {
        lost.add("character_lost_by_host@" + (records + piece));
      }
      for (byte[][] r : turn.records()) {
        raw.add(r[0], r[1]);
        records++;
      }
    }
    raw.add(
        "PROVISIONING_REPORT",
        ProvisioningReport.success("kvprov/test", "vm", Instant.EPOCH).encode());
    Path pool = Files.createTempFile("healthy", ".kvp");
    try {
      Files.write(pool, raw.bytes());
      CliRun run = CliRun.of("doctor", "--json", "--file", pool.toString());

      assertThat(run.json().path("problems"))
          .as(run.out())
          .extracting(p -> p.path("kind").asText() + "@" + p.path("record").asInt())
          .containsExactlyElementsOf(lost);
      assertThat(run.exit()).isEqualTo(lost.isEmpty() ? 0 : 1);
    } finally {
      Files.delete(pool);
    }
  }

  /** Up to 12 turns, each as likely: kvprov's, azure-init's, its diagnostics', cloud-init's. */
  private static List<Turn> turns(SplittableRandom r) {
    return Trials.list(
        r,
        0,
        12,
        e ->
            switch (e.nextInt(4)) {
              case 0 -> kvprovLog(text(e));
              case 1 -> azureInitEvent(text(e));
              case 2 -> diagEvent(text(e), Trials.oneOf(e, "none", "gz+b64", "zlib+b64"));
              default -> new Turn(List.of());
            });
  }

  /**
   * Texts of any length up to four kvprov pieces, often with multi-byte characters: any chars but
   * NUL up to 300, or a short text repeated 1 to 1,400 times.
   */
  private static String text(SplittableRandom r) {
    if (r.nextBoolean()) {
      String any;
      do {
        any = Trials.anyString(r, 300);
      } while (any.indexOf('\0') >= 0);
      return any;
    }
    return Trials.oneOf(r, "x", "é", "日本", "€ ", "🙂", "a|b", "\"q\"", "\\")
        .repeat(Trials.between(r, 1, 1400));
  }

  private static int serial;

  /** A log record as kvprov's writer encodes it: split into {@code |i/n} pieces when long. */
  private static Turn kvprovLog(String text) {
    String id = String.format("%016x", ++serial);
    return Turn.of(
        KvpRecordFormat.encode(
            new KvprovRecord(
                KvprovRecord.Kind.LOG,
                KvprovRecord.Level.INFO,
                "vm",
                id,
                List.of(
                    new KvprovRecord.Field(
                        dev.kvprov.otel.KvpRecordFormat.BODY,
                        text.substring(0, Math.min(3000, text.length())))),
                Attributes.empty())));
  }

  /** An event as azure-init writes it: a new uuid per value, the bytes cut every 1,022. */
  private static Turn azureInitEvent(String text) {
    String key =
        "azure-init-0.1.1|vm|INFO|provision:user|"
            + String.format("0c1f9b1e-8a4d-4c1e-9d5f-%012x", ++serial);
    byte[] value = ("Time: 2024-06-01T10:00:02.000Z | Event: " + text).getBytes(UTF_8);
    List<byte[][]> pieces = new java.util.ArrayList<>();
    List<Integer> inside = new java.util.ArrayList<>();
    for (int at = 0; at < value.length; at += 1022) {
      if (at > 0 && (value[at] & 0xC0) == 0x80) {
        inside.add(pieces.size() - 1); // the piece before this cut ends inside a character
      }
      pieces.add(
          new byte[][] {
            key.getBytes(UTF_8), Arrays.copyOfRange(value, at, Math.min(at + 1022, value.length))
          });
    }
    return new Turn(pieces, inside);
  }

  /**
   * An event as azure-init's diagnostic writer encodes it: the payload encoded, then cut into
   * pieces of at most 1,022 bytes that each end on a whole character, numbered from 0.
   */
  private static Turn diagEvent(String text, String encoding) {
    String base =
        "DIAG|azure-init/0.1.1|5c0ffee0-4d2b-4c3a-9e1f-0a1b2c3d4e5f|event|provision:user|"
            + String.format("0c1f9b1e-8a4d-4c1e-9d5f-%012x", ++serial)
            + "|2026-11-22T04:47:47.123Z|"
            + encoding
            + "||"; // no result, no duration
    byte[] payload = text.getBytes(UTF_8);
    if (!encoding.equals("none")) {
      java.io.ByteArrayOutputStream packed = new java.io.ByteArrayOutputStream();
      try (java.io.OutputStream out =
          encoding.equals("gz+b64")
              ? new java.util.zip.GZIPOutputStream(packed)
              : new java.util.zip.DeflaterOutputStream(packed)) {
        out.write(payload);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      payload = java.util.Base64.getEncoder().encode(packed.toByteArray());
    }
    List<byte[][]> pieces = new java.util.ArrayList<>();
    int at = 0;
    do {
      int end = Math.min(payload.length, at + 1022);
      while (end < payload.length && (payload[end] & 0xC0) == 0x80) {
        end--; // not inside a character
      }
      pieces.add(
          new byte[][] {
            (base + "|" + pieces.size()).getBytes(UTF_8), Arrays.copyOfRange(payload, at, end)
          });
      at = end;
    } while (at < payload.length);
    return new Turn(pieces);
  }
}
