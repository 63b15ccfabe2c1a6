package dev.kvprov.kvp;

import static dev.kvprov.kvp.RecordCodec.KEY_SIZE;
import static dev.kvprov.kvp.RecordCodec.RECORD_SIZE;
import static dev.kvprov.kvp.RecordCodec.VALUE_SIZE;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A pool read as bytes gives what a pool read as text gives, damage and all. */
class PoolBytesVisitorTest {
  @TempDir Path dir;

  /** What either kind of visitor saw, as lines: the entries' fields and the problems, in order. */
  private static final class Seen implements PoolBytesVisitor {
    final List<String> lines = new ArrayList<>();
    final List<byte[]> keys = new ArrayList<>();
    final List<byte[]> values = new ArrayList<>();

    @Override
    public void entry(PoolEntry entry) {
      lines.add(entry.index() + "@" + entry.offset() + " " + entry.intact() + " " + entry.record());
    }

    @Override
    public void entry(int index, long offset, ByteBuffer key, ByteBuffer value, boolean intact) {
      byte[] k = copy(key);
      byte[] v = copy(value);
      keys.add(k);
      values.add(v);
      lines.add(
          index
              + "@"
              + offset
              + " "
              + intact
              + " "
              + new KvpRecord(new String(k, UTF_8), new String(v, UTF_8)));
    }

    @Override
    public void problem(KvpProblem problem) {
      lines.add("! " + problem);
    }
  }

  /** Asks for text: every entry through {@link PoolVisitor#entry(PoolEntry)}. */
  private static final class AsText implements PoolVisitor {
    final Seen to = new Seen();

    @Override
    public void entry(PoolEntry entry) {
      to.entry(entry);
    }

    @Override
    public void problem(KvpProblem problem) {
      to.problem(problem);
    }
  }

  private static byte[] copy(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }

  private static byte[] record(byte[] key, byte[] value) {
    byte[] r = new byte[RECORD_SIZE];
    System.arraycopy(key, 0, r, 0, key.length);
    System.arraycopy(value, 0, r, KEY_SIZE, value.length);
    return r;
  }

  private static byte[] concat(byte[]... parts) {
    int n = 0;
    for (byte[] p : parts) {
      n += p.length;
    }
    byte[] out = new byte[n];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }

  private Seen[] scanBothWays(byte[] pool) throws IOException {
    Path file = dir.resolve("pool.kvp");
    Files.write(file, pool);
    Seen bytes = new Seen();
    AsText text = new AsText();
    try (FileChannel channel = FileChannel.open(file)) {
      RecordCodec.scan(channel, bytes);
    }
    try (FileChannel channel = FileChannel.open(file)) {
      RecordCodec.scan(channel, text);
    }
    return new Seen[] {bytes, text.to};
  }

  @Test
  void fieldsThatFillTheirSlots_areGivenWhole_withTheirProblems() throws IOException {
    byte[] key = new byte[KEY_SIZE];
    Arrays.fill(key, (byte) 'k');
    byte[] value = new byte[VALUE_SIZE];
    Arrays.fill(value, (byte) 'v');

    Seen[] seen = scanBothWays(record(key, value));

    assertThat(seen[0].keys).containsExactly(key);
    assertThat(seen[0].values).containsExactly(value);
    assertThat(seen[0].lines).hasSize(3).anyMatch(l -> l.contains("key field has no NUL"));
    assertThat(seen[0].lines.get(2)).startsWith("0@0 false ");
    assertThat(seen[0].lines).isEqualTo(seen[1].lines);
  }

  @Test
  void bytesThatAreNotUtf8_areGivenAsStored_andSaid() throws IOException {
    byte[] bad = {'a', (byte) 0xff, 'b', (byte) 0xc3};
    Seen[] seen =
        scanBothWays(concat(record(bad, "x".getBytes(UTF_8)), record("k".getBytes(UTF_8), bad)));

    assertThat(seen[0].keys.get(0)).isEqualTo(bad);
    assertThat(seen[0].values.get(1)).isEqualTo(bad);
    assertThat(seen[0].lines).filteredOn(l -> l.contains("not valid UTF-8")).hasSize(2);
    assertThat(seen[0].lines).isEqualTo(seen[1].lines);
  }

  @Test
  void anEmptyKey_andATornRecordInTheMiddle_areSaidAsForText() throws IOException {
    byte[] a = record("a".getBytes(UTF_8), "1".getBytes(UTF_8));
    byte[] empty = record(new byte[0], "2".getBytes(UTF_8));
    byte[] torn = Arrays.copyOf(record("t".getBytes(UTF_8), "3".getBytes(UTF_8)), 700);

    Seen[] seen = scanBothWays(concat(a, empty, torn, a, a, a, a, a, a, a, a));

    assertThat(seen[0].lines)
        .anyMatch(l -> l.contains("key is empty"))
        .anyMatch(l -> l.contains("cut short (700 bytes"));
    assertThat(seen[0].keys).hasSize(10);
    assertThat(seen[0].lines).isEqualTo(seen[1].lines);
  }

  @Test
  void aTornLastRecord_isSaidAfterTheWholeOnes() throws IOException {
    byte[] a = record("a".getBytes(UTF_8), "1".getBytes(UTF_8));
    byte[] tail = Arrays.copyOf(record("z".getBytes(UTF_8), "4".getBytes(UTF_8)), 100);

    Seen[] seen = scanBothWays(concat(a, a, tail));

    assertThat(seen[0].keys).hasSize(2);
    assertThat(seen[0].lines.get(2)).contains("ends with 100 bytes");
    assertThat(seen[0].lines).isEqualTo(seen[1].lines);
  }

  @Test
  void aPoolOfNoRecords_givesNothing() throws IOException {
    Seen[] seen = scanBothWays(new byte[0]);

    assertThat(seen[0].lines).isEmpty();
    assertThat(seen[1].lines).isEmpty();
  }

  @Test
  void aPoolThatGrowsWhileRead_givesTheRecordsAppendedBehindTheReader() throws IOException {
    int records = 3 * PoolScanner.RECORDS_PER_READ;
    Path file = dir.resolve("growing.kvp");
    byte[] one = record("k".getBytes(UTF_8), "v".getBytes(UTF_8));
    byte[] pool = new byte[records * RECORD_SIZE];
    for (int i = 0; i < records; i++) {
      System.arraycopy(one, 0, pool, i * RECORD_SIZE, RECORD_SIZE);
    }
    Files.write(file, pool);
    List<Integer> indexes = new ArrayList<>();
    try (FileChannel channel = FileChannel.open(file);
        FileChannel writer = FileChannel.open(file, StandardOpenOption.APPEND)) {
      RecordCodec.scan(
          channel,
          new PoolBytesVisitor() {
            @Override
            public void entry(PoolEntry entry) {
              throw new AssertionError("a pool file's records are given as bytes");
            }

            @Override
            public void entry(
                int index, long offset, ByteBuffer key, ByteBuffer value, boolean intact) {
              indexes.add(index);
              if (index == 0) {
                try {
                  writer.write(ByteBuffer.wrap(record("new".getBytes(UTF_8), new byte[0])));
                } catch (IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
              }
            }
          });
    }

    assertThat(indexes).hasSize(records + 1).last().isEqualTo(records);
  }
}
