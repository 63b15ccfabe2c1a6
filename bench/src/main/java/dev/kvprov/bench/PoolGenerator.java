package dev.kvprov.bench;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvprov.fixtures.Fixtures;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolEntry;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.RecordCodec;
import io.opentelemetry.api.common.Attributes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;

/**
 * Writes a realistic mixed pool of a given size for whole-process measurements of {@code kvp}:
 * kvprov span trees (starts, ends, split long values, failures) interleaved with cloud-init's
 * records taken from a real cloud-init pool and azure-init's diagnostics records from the project's
 * DIAG pool (fresh ids, so every event and span stays its own).
 *
 * <p>Usage: {@code PoolGenerator OUT RECORDS [CLOUD_INIT_POOL]}, the cloud-init records from the
 * project's fixture pool unless another is named. Deterministic: the same arguments write the same
 * bytes.
 */
public final class PoolGenerator {
  private static final String VM = "00840e55-9be2-d441-a716-446655440000";

  private final Random random = new Random(42);
  private final List<KvpRecord> out = new ArrayList<>();
  private final SpanRecords spans =
      new SpanRecords(VM, Instant.parse("2026-11-22T04:47:40Z"), 3.0, out);

  private PoolGenerator() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 2 && args.length != 3) {
      System.err.println(
          "usage: PoolGenerator OUT RECORDS [CLOUD_INIT_POOL]\n"
              + "  e.g. PoolGenerator /dev/shm/pool-100k.kvp 100000");
      System.exit(2);
    }
    Path file = Path.of(args[0]);
    int records = Integer.parseInt(args[1]);
    byte[] cloudInitPool =
        args.length == 3
            ? Files.readAllBytes(Path.of(args[2]))
            : Fixtures.bytes(Fixtures.CLOUD_INIT_POOL);
    List<PoolEntry> cloudInit = RecordCodec.decode(cloudInitPool).entries();
    List<PoolEntry> azureInit =
        RecordCodec.decode(Fixtures.bytes(Fixtures.AZURE_INIT_DIAG_POOL)).entries();
    Files.deleteIfExists(file);
    PoolFile pool = PoolFile.builder().file(file).build();
    PoolGenerator generator = new PoolGenerator();
    int written = 0;
    while (written < records) {
      generator.out.clear();
      generator.trace();
      generator.cloudInit(cloudInit);
      generator.azureInit(azureInit);
      List<KvpRecord> batch =
          generator.out.subList(0, Math.min(generator.out.size(), records - written));
      pool.append(batch);
      written += batch.size();
    }
    System.err.printf("%s: %d records, %d bytes%n", file, written, Files.size(file));
  }

  /** One provisioning-like trace: a root and a dozen steps, some split, one in 20 failed. */
  private void trace() {
    String trace = hex(32);
    SpanRecords.Open root = spans.start(trace, hex(16), null, "provision");
    for (int step = 0; step < 12; step++) {
      SpanRecords.Open span = spans.start(trace, hex(16), root.id(), "step-" + step);
      advance();
      end(span, random.nextInt(20) == 0);
    }
    end(root, false);
  }

  private void end(SpanRecords.Open span, boolean failed) {
    // one end in eight carries a long attribute, so its value is split into pieces
    String detail = random.nextInt(8) == 0 ? "x".repeat(1500) : "short";
    spans.end(
        span,
        failed ? "exit status 9 from useradd" : null,
        Attributes.builder().put("step.detail", detail).build());
  }

  private void cloudInit(List<PoolEntry> fixture) {
    String uuid = null;
    String previous = null;
    for (PoolEntry e : fixture) {
      String key = e.key();
      String base = key.replaceFirst("\\|\\d+$", "");
      if (!base.equals(previous)) {
        uuid = UUID.nameUUIDFromBytes(hex(16).getBytes(UTF_8)).toString();
        previous = base;
      }
      out.add(
          new KvpRecord(
              key.replaceFirst(
                  "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", uuid),
              e.value()));
    }
  }

  /**
   * azure-init's records ({@code DIAG|agent|vm|kind|name|span id|time|…}), each span under a fresh
   * id: a start and its finish keep sharing theirs.
   */
  private void azureInit(List<PoolEntry> fixture) {
    java.util.Map<String, String> fresh = new java.util.HashMap<>();
    for (PoolEntry e : fixture) {
      String[] fields = e.key().split("\\|", -1);
      if (fields.length > 5) {
        fields[5] =
            fresh.computeIfAbsent(
                fields[5], old -> UUID.nameUUIDFromBytes(hex(16).getBytes(UTF_8)).toString());
      }
      out.add(new KvpRecord(String.join("|", fields), e.value()));
    }
  }

  private void advance() {
    spans.advance(5 + random.nextInt(400));
  }

  private String hex(int digits) {
    StringBuilder s = new StringBuilder(digits);
    for (int i = 0; i < digits; i++) {
      s.append(Character.forDigit(random.nextInt(16), 16));
    }
    return s.toString();
  }
}
