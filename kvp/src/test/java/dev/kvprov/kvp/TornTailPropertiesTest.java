package dev.kvprov.kvp;

import static dev.kvprov.kvp.RecordCodec.RECORD_SIZE;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.fixtures.Fixtures;
import dev.kvprov.fixtures.Trials;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A record cut short at any byte, whatever its value's length, with other writers' whole records
 * after it: readers pass over exactly the part, and the next write removes exactly the part. The
 * writers after it are cloud-init's real handler and azure-init's diagnostic records (the committed
 * pools, written by their own code: values of 0 to 1,021 bytes) and ours.
 */
class TornTailPropertiesTest {
  /** Every writer's records, as their own code wrote them. */
  private static final List<byte[]> OTHERS = others();

  /** Two records before the part, so it does not start the file. */
  private static final List<byte[]> BEFORE =
      List.of(encode(PeerRecords.record("kvprov", 7)), OTHERS.get(0));

  /** The cuts where a field ends or begins, or a value is a field's size from its end. */
  private static final int[] BOUNDARIES = {1, 2, 511, 512, 513, 1535, 1536, 1537, 2047, 2048, 2049};

  @TempDir Path dir;

  /** Every cut point of every value size's class, against each writer's records following. */
  @Test
  void everyCutPoint_ofValuesOfEachSizeClass_isFoundExactly() {
    int[] valueSizes = {0, 511, 1022, 1535, 1536, 1800, 2047};
    List<List<byte[]>> followers =
        List.of(
            OTHERS.subList(0, 9), // cloud-init's real handler
            OTHERS.subList(12, 22), // azure-init's diagnostics, empty values among them
            List.of(OTHERS.get(21), OTHERS.get(24), OTHERS.get(9)), // empty, empty, then long
            List.of(encode(PeerRecords.record("kvprov", 399))));
    List<String> wrong = new ArrayList<>();
    for (int valueSize : valueSizes) {
      byte[] record = tornRecord(valueSize);
      for (int cut = 1; cut < RECORD_SIZE; cut++) {
        TornRecord expected = new TornRecord((long) BEFORE.size() * RECORD_SIZE, cut);
        for (List<byte[]> after : followers) {
          TornRecord found =
              TornRecord.find(pool(BEFORE, Arrays.copyOf(record, cut), after)).orElseThrow();
          if (!found.equals(expected)) {
            wrong.add(valueSize + "-byte value cut after " + cut + ": " + found);
          }
        }
      }
    }
    assertThat(wrong).isEmpty();
  }

  /**
   * Any value size, any cut (its edges and those relative to the value weighed in), any mix of
   * writers after: the reader finds every whole record once and no other, and so does the next
   * append, on a real file, after it removed the part.
   */
  @Test
  void anyCut_ofAnyValueSize_withAnyWritersAfter_keepsEveryRecordOnce_andNoJunk() {
    Trials.run(300, r -> keepsEveryRecordOnceAndNoJunk(cut(r), followers(r)));
  }

  private void keepsEveryRecordOnceAndNoJunk(Cut torn, List<byte[]> after) throws IOException {
    byte[] part = Arrays.copyOf(tornRecord(torn.valueSize()), torn.cut());
    byte[] bytes = pool(BEFORE, part, after);
    List<KvpRecord> whole = new ArrayList<>();
    for (byte[] record : concat(BEFORE, after)) {
      whole.add(RecordCodec.decode(record).records().get(0));
    }

    PoolSnapshot read = RecordCodec.decode(bytes);
    assertThat(read.records()).containsExactlyElementsOf(whole);
    assertThat(read.problems())
        .singleElement()
        .satisfies(p -> assertThat(p.offset()).isEqualTo((long) BEFORE.size() * RECORD_SIZE));

    Path file = dir.resolve(".kvp_pool_1");
    Files.write(file, bytes);
    PoolFile pool = PoolFile.builder().file(file).limits(KvpLimits.WIRE).build();
    KvpRecord next = PeerRecords.record("kvprov", 8);
    pool.append(next);

    PoolSnapshot repaired = pool.read();
    assertThat(repaired.problems()).isEmpty();
    whole.add(next);
    assertThat(repaired.records()).containsExactlyElementsOf(whole);
    assertThat(Files.size(file)).isEqualTo((long) whole.size() * RECORD_SIZE);
  }

  record Cut(int valueSize, int cut) {}

  /**
   * Any value size; a cut anywhere (4 in 9), at a field's edge (2 in 9) or next to the value's end
   * (3 in 9).
   */
  private static Cut cut(SplittableRandom r) {
    int size = Trials.between(r, 0, 2047);
    int valueEnd = RecordCodec.KEY_SIZE + size;
    int[] nearValue =
        IntStream.rangeClosed(valueEnd - 1, valueEnd + 1)
            .filter(c -> c >= 1 && c < RECORD_SIZE)
            .toArray();
    int pick = r.nextInt(9);
    int cut =
        pick < 4
            ? Trials.between(r, 1, RECORD_SIZE - 1)
            : pick < 6
                ? BOUNDARIES[r.nextInt(BOUNDARIES.length)]
                : nearValue[r.nextInt(nearValue.length)];
    return new Cut(size, cut);
  }

  /** 1 to 12 whole records: another writer's (3 in 4) or ours, of up to 2,000 bytes. */
  private static List<byte[]> followers(SplittableRandom r) {
    return Trials.list(
        r,
        1,
        12,
        e ->
            e.nextInt(4) < 3
                ? OTHERS.get(e.nextInt(OTHERS.size()))
                : encode(PeerRecords.record("ours", Trials.between(e, 0, 2000))));
  }

  /**
   * Ours, cut short: a kvprov key, a value of exactly {@code size} bytes, some of them two-byte.
   */
  private static byte[] tornRecord(int size) {
    StringBuilder value = new StringBuilder();
    int bytes = 0;
    while (bytes < size) {
      boolean wide = bytes % 7 == 3 && size - bytes >= 2;
      value.append(wide ? 'ü' : (char) ('a' + bytes % 26));
      bytes += wide ? 2 : 1;
    }
    assertThat(value.toString().getBytes(UTF_8)).hasSize(size);
    return RecordCodec.encode(
        new KvpRecord(
            "kvprov-1|00840e55-9be2-d441-a716-446655440000|INFO|end|imds.fetch|1eec9c8d2b3477ff",
            value.toString()),
        KvpLimits.WIRE);
  }

  private static byte[] pool(List<byte[]> before, byte[] part, List<byte[]> after) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    before.forEach(out::writeBytes);
    out.writeBytes(part);
    after.forEach(out::writeBytes);
    return out.toByteArray();
  }

  private static List<byte[]> concat(List<byte[]> a, List<byte[]> b) {
    List<byte[]> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  private static byte[] encode(KvpRecord record) {
    return RecordCodec.encode(record, KvpLimits.WIRE);
  }

  /** The committed pools' records, cloud-init's 12 then azure-init's 16, each 2,560 bytes. */
  private static List<byte[]> others() {
    List<byte[]> records = new ArrayList<>();
    for (String name : List.of(Fixtures.CLOUD_INIT_POOL, Fixtures.AZURE_INIT_DIAG_POOL)) {
      byte[] pool = Fixtures.bytes(name);
      if (pool.length % RECORD_SIZE != 0) {
        throw new UncheckedIOException(new IOException(name + " is not whole records"));
      }
      for (int at = 0; at < pool.length; at += RECORD_SIZE) {
        records.add(Arrays.copyOfRange(pool, at, at + RECORD_SIZE));
      }
    }
    assertThat(records).hasSize(28);
    return List.copyOf(records);
  }
}
