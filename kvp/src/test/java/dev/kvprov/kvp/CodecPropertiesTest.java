package dev.kvprov.kvp;

import static dev.kvprov.kvp.RecordCodec.KEY_SIZE;
import static dev.kvprov.kvp.RecordCodec.RECORD_SIZE;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.fixtures.Trials;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class CodecPropertiesTest {

  @Test
  void chunks_areValidUtf8_withinLimit_maximal_andReassembleExactly() {
    Trials.run(
        500,
        r ->
            chunksAreValidUtf8WithinLimitMaximalAndReassembleExactly(
                unicode(r), Trials.between(r, 4, 2047)));
  }

  private static void chunksAreValidUtf8WithinLimitMaximalAndReassembleExactly(
      String value, int maxBytes) {
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

  @Test
  void encodeThenDecode_isLossless_forAnyStringsWithinTheLimits() {
    Trials.run(300, r -> encodeThenDecodeIsLossless(unicode(r), unicode(r)));
  }

  private static void encodeThenDecodeIsLossless(String key, String value) {
    String k = ValueChunker.split(key.replace("\0", ""), KvpLimits.HOST_SAFE.maxKeyBytes()).get(0);
    String v = ValueChunker.split(value.replace("\0", ""), KvpLimits.HOST_SAFE).get(0);
    KvpRecord record = new KvpRecord(k.isEmpty() ? "k" : k, v);

    PoolSnapshot snapshot = RecordCodec.decode(RecordCodec.encode(record, KvpLimits.HOST_SAFE));

    assertThat(snapshot.problems()).isEmpty();
    assertThat(snapshot.records()).containsExactly(record);
  }

  @Test
  void decode_ofAnyBytes_neverThrows_andAgreesWithAPlainReadingOfEverySlot() {
    Trials.run(1000, r -> decodeAgreesWithAPlainReadingOfEverySlot(byteSoup(r)));
  }

  /** Also the check of {@link RecordCodecFuzzTest}, on the fuzzer's bytes. */
  static void decodeAgreesWithAPlainReadingOfEverySlot(byte[] data) {
    PoolSnapshot snapshot = RecordCodec.decode(data);

    // Part of a record in the middle (whole, well-formed records after it) is passed over: the
    // slots are those of the bytes without it.
    Optional<TornRecord> middle =
        TornRecord.find(data).filter(t -> t.offset() + t.length() < data.length);
    long cutAt = middle.map(TornRecord::offset).orElse(Long.MAX_VALUE);
    int cut = middle.map(TornRecord::length).orElse(0);
    byte[] plain = data;
    if (middle.isPresent()) {
      plain = new byte[data.length - cut];
      System.arraycopy(data, 0, plain, 0, (int) cutAt);
      System.arraycopy(data, (int) cutAt + cut, plain, (int) cutAt, plain.length - (int) cutAt);
    }
    assertThat(snapshot.entries()).hasSize(plain.length / RECORD_SIZE);
    Set<Integer> damaged = new HashSet<>();
    for (KvpProblem problem : snapshot.problems()) {
      assertThat(problem.offset()).isBetween(0L, (long) data.length - 1);
      if (problem.kind() == KvpProblem.Kind.TORN_RECORD) {
        assertThat(problem.offset()).isEqualTo(cutAt);
        continue;
      }
      long inPlain = problem.offset() > cutAt ? problem.offset() - cut : problem.offset();
      assertThat(inPlain / RECORD_SIZE).isEqualTo(problem.recordIndex());
      if (problem.kind() != KvpProblem.Kind.TRAILING_PARTIAL_RECORD) {
        damaged.add(problem.recordIndex());
      }
    }
    assertThat(snapshot.problems().stream().filter(p -> p.kind() == KvpProblem.Kind.TORN_RECORD))
        .hasSize(middle.isPresent() ? 1 : 0);
    boolean torn =
        snapshot.problems().stream()
            .anyMatch(p -> p.kind() == KvpProblem.Kind.TRAILING_PARTIAL_RECORD);
    assertThat(torn).isEqualTo(plain.length % RECORD_SIZE != 0);
    for (PoolEntry entry : snapshot.entries()) {
      int at = entry.index() * RECORD_SIZE;
      assertThat(entry.offset()).isEqualTo(at >= cutAt ? at + cut : at);
      byte[] key = untilNul(plain, at, KEY_SIZE);
      byte[] value = untilNul(plain, at + KEY_SIZE, RECORD_SIZE - KEY_SIZE);
      boolean sound =
          key.length > 0
              && key.length < KEY_SIZE
              && value.length < RECORD_SIZE - KEY_SIZE
              && strictlyDecodes(key)
              && strictlyDecodes(value);
      assertThat(entry.intact()).as("record %d intact", entry.index()).isEqualTo(sound);
      assertThat(damaged.contains(entry.index())).isEqualTo(!sound);
      if (sound) {
        assertThat(entry.key().getBytes(UTF_8)).isEqualTo(key);
        assertThat(entry.value().getBytes(UTF_8)).isEqualTo(value);
      }
    }
  }

  /**
   * Text of up to 3,000 code points: printable ASCII, the characters the formats treat specially,
   * or any code point outside the surrogates.
   */
  static String unicode(SplittableRandom r) {
    int length = Trials.size(r, 0, 3000);
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < length; i++) {
      sb.appendCodePoint(
          switch (r.nextInt(4)) {
            case 0 -> Trials.between(r, 0x20, 0x7e);
            case 1 ->
                Trials.oneOf(
                    r, (int) '|', (int) '"', (int) '\\', (int) '\n', 0, 0xe9, 0x7ff, 0x800);
            case 2 -> Trials.between(r, 0x80, 0xd7ff);
            default -> Trials.between(r, 0xe000, 0x10ffff);
          });
    }
    return sb.toString();
  }

  /**
   * Pools of 0 to 4 slots plus a possible torn tail. Each field is valid UTF-8 text, random bytes
   * (invalid sequences, stray NULs) or a run with no NUL at all, followed by NUL padding or
   * garbage.
   */
  static byte[] byteSoup(SplittableRandom r) {
    List<byte[]> slots = Trials.list(r, 0, 4, CodecPropertiesTest::slot);
    int tailLength = r.nextBoolean() ? 0 : Trials.between(r, 1, RECORD_SIZE - 1);
    byte[] tailBytes = noise(r);
    byte[] data = new byte[slots.size() * RECORD_SIZE + tailLength];
    for (int i = 0; i < slots.size(); i++) {
      System.arraycopy(slots.get(i), 0, data, i * RECORD_SIZE, RECORD_SIZE);
    }
    System.arraycopy(
        tailBytes, 0, data, slots.size() * RECORD_SIZE, Math.min(tailLength, tailBytes.length));
    return data;
  }

  private static byte[] slot(SplittableRandom r) {
    byte[] key = field(r);
    byte[] value = field(r);
    byte[] garbage = noise(r);
    byte[] record = new byte[RECORD_SIZE];
    System.arraycopy(key, 0, record, 0, Math.min(key.length, KEY_SIZE));
    int v = Math.min(value.length, RECORD_SIZE - KEY_SIZE);
    System.arraycopy(value, 0, record, KEY_SIZE, v);
    // Garbage after the value's NUL, as old writers leave: must be ignored.
    int g = Math.min(garbage.length, RECORD_SIZE - KEY_SIZE - v - 1);
    if (g > 0) {
      System.arraycopy(garbage, 0, record, RECORD_SIZE - g, g);
    }
    return record;
  }

  /** Text, text again, noise or a run with no NUL: text is as likely as both others. */
  private static byte[] field(SplittableRandom r) {
    return switch (r.nextInt(4)) {
      case 0, 1 -> unicode(r).getBytes(UTF_8);
      case 2 -> noise(r);
      default -> {
        byte[] run = new byte[Trials.size(r, 1, 2100)];
        for (int i = 0; i < run.length; i++) {
          run[i] = (byte) Trials.between(r, 1, 255);
        }
        yield run;
      }
    };
  }

  /** Up to 600 bytes of any value. */
  private static byte[] noise(SplittableRandom r) {
    byte[] bytes = new byte[Trials.size(r, 0, 600)];
    r.nextBytes(bytes);
    return bytes;
  }

  private static byte[] untilNul(byte[] data, int from, int size) {
    int end = from;
    while (end < from + size && data[end] != 0) {
      end++;
    }
    return java.util.Arrays.copyOfRange(data, from, end);
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
