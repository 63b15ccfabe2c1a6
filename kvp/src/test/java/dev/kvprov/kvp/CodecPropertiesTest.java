package dev.kvprov.kvp;

import static dev.kvprov.kvp.RecordCodec.RECORD_SIZE;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

class CodecPropertiesTest {

  @Property(tries = 500)
  void chunks_areValidUtf8_withinLimit_maximal_andReassembleExactly(
      @ForAll("unicode") String value, @ForAll @IntRange(min = 4, max = 2047) int maxBytes) {
    List<String> chunks = ValueChunker.split(value, maxBytes);

    assertThat(String.join("", chunks)).isEqualTo(value);
    for (int i = 0; i < chunks.size(); i++) {
      byte[] bytes = chunks.get(i).getBytes(UTF_8);
      assertThat(bytes.length).isLessThanOrEqualTo(maxBytes);
      assertThat(strictlyDecodes(bytes)).as("chunk %d is valid UTF-8 on its own", i).isTrue();
      if (i + 1 < chunks.size()) {
        String next = chunks.get(i + 1);
        int firstCodePoint = next.codePointAt(0);
        int grown =
            bytes.length + new String(Character.toChars(firstCodePoint)).getBytes(UTF_8).length;
        assertThat(grown)
            .as("chunk %d could not take one more code point", i)
            .isGreaterThan(maxBytes);
      }
    }
  }

  @Property(tries = 300)
  void encodeThenDecode_isLossless_forAnyStringsWithinTheLimits(
      @ForAll("unicode") String key, @ForAll("unicode") String value) {
    String k = ValueChunker.split(key.replace("\0", ""), KvpLimits.HOST_SAFE.maxKeyBytes()).get(0);
    String v = ValueChunker.split(value.replace("\0", ""), KvpLimits.HOST_SAFE).get(0);
    KvpRecord record = new KvpRecord(k.isEmpty() ? "k" : k, v);

    PoolSnapshot snapshot = RecordCodec.decode(RecordCodec.encode(record, KvpLimits.HOST_SAFE));

    assertThat(snapshot.problems()).isEmpty();
    assertThat(snapshot.records()).containsExactly(record);
  }

  @Property(tries = 1000)
  void decode_ofAnyBytes_neverThrows_andAccountsForEveryRecordSlot(
      @ForAll("byteSoup") byte[] data) {
    PoolSnapshot snapshot = RecordCodec.decode(data);

    assertThat(snapshot.entries()).hasSize(data.length / RECORD_SIZE);
    for (int i = 0; i < snapshot.entries().size(); i++) {
      assertThat(snapshot.entries().get(i).offset()).isEqualTo((long) i * RECORD_SIZE);
    }
    for (KvpProblem problem : snapshot.problems()) {
      assertThat(problem.offset()).isBetween(0L, (long) data.length - 1);
      assertThat(problem.offset() / RECORD_SIZE).isEqualTo(problem.recordIndex());
    }
    boolean torn =
        snapshot.problems().stream()
            .anyMatch(p -> p.kind() == KvpProblem.Kind.TRAILING_PARTIAL_RECORD);
    assertThat(torn).isEqualTo(data.length % RECORD_SIZE != 0);
    snapshot.entries().stream()
        .filter(PoolEntry::intact)
        .forEach(e -> assertThat(e.key()).doesNotContain("\uFFFD", "\0").isNotEmpty());
  }

  @Provide
  Arbitrary<String> unicode() {
    Arbitrary<Integer> codePoint =
        Arbitraries.oneOf(
            Arbitraries.integers().between(0x20, 0x7e),
            Arbitraries.of((int) '|', (int) '"', (int) '\\', (int) '\n', 0, 0xe9, 0x7ff, 0x800),
            Arbitraries.integers().between(0x80, 0xd7ff),
            Arbitraries.integers().between(0xe000, 0x10ffff));
    return codePoint
        .list()
        .ofMaxSize(3000)
        .map(
            cps -> {
              StringBuilder sb = new StringBuilder();
              cps.forEach(sb::appendCodePoint);
              return sb.toString();
            });
  }

  /**
   * Random bytes, mostly NULs with runs of text and high bytes, of lengths around a few records.
   */
  @Provide
  Arbitrary<byte[]> byteSoup() {
    Arbitrary<Byte> b =
        Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(6, Arbitraries.just((byte) 0)),
            net.jqwik.api.Tuple.of(3, Arbitraries.bytes().between((byte) 0x20, (byte) 0x7e)),
            net.jqwik.api.Tuple.of(2, Arbitraries.bytes()));
    Arbitrary<Integer> length =
        Arbitraries.oneOf(
            Arbitraries.integers().between(0, 4 * RECORD_SIZE + 7),
            Arbitraries.integers().between(1, 3).map(n -> n * RECORD_SIZE));
    return Combinators.combine(length, b.list().ofMinSize(1).ofMaxSize(64))
        .as(
            (len, pattern) -> {
              byte[] data = new byte[len];
              for (int i = 0; i < len; i++) {
                data[i] = pattern.get((i * 31 + i / 7) % pattern.size());
              }
              return data;
            });
  }

  private static boolean strictlyDecodes(byte[] bytes) {
    try {
      UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }
}
