package dev.kvprov.kvp;

import static dev.kvprov.kvp.RecordCodec.KEY_SIZE;
import static dev.kvprov.kvp.RecordCodec.RECORD_SIZE;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvprov.fixtures.Fixtures;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecordCodecTest {

  @Test
  void scan_givesTheValueBytesAsStored_evenWhenTheyAreNotUtf8() throws IOException {
    byte[] pool = new byte[2 * RECORD_SIZE];
    pool[0] = 'k';
    byte[] cut = "caf\u00e9".getBytes(UTF_8);
    System.arraycopy(cut, 0, pool, KEY_SIZE, cut.length - 1); // ends inside the 'é'
    pool[RECORD_SIZE] = 'k';
    List<byte[]> values = new java.util.ArrayList<>();

    RecordCodec.scan(
        new java.io.ByteArrayInputStream(pool),
        new PoolVisitor() {
          @Override
          public void entry(PoolEntry entry) {
            throw new AssertionError("the two-argument entry is called");
          }

          @Override
          public void entry(PoolEntry entry, java.nio.ByteBuffer valueBytes) {
            byte[] copy = new byte[valueBytes.remaining()];
            valueBytes.get(copy);
            values.add(copy);
          }
        });

    assertThat(values.get(0)).isEqualTo(Arrays.copyOf(cut, cut.length - 1));
    assertThat(values.get(1)).isEmpty();
  }

  @Test
  void decode_cloudInitPool_matchesIndependentDecoderByteForByte() throws IOException {
    byte[] pool = Fixtures.bytes(Fixtures.CLOUD_INIT_POOL);
    JsonNode expected = new ObjectMapper().readTree(Fixtures.bytes(Fixtures.CLOUD_INIT_RECORDS));

    PoolSnapshot snapshot = RecordCodec.decode(pool);

    assertThat(snapshot.problems()).isEmpty();
    assertThat(snapshot.entries()).hasSize(12).allMatch(PoolEntry::intact);
    for (int i = 0; i < 12; i++) {
      PoolEntry entry = snapshot.entries().get(i);
      assertThat(entry.index()).isEqualTo(i);
      assertThat(entry.offset()).isEqualTo((long) i * RECORD_SIZE);
      assertThat(entry.key().getBytes(UTF_8))
          .isEqualTo(expected.get(i).get("key").asText().getBytes(UTF_8));
      assertThat(entry.value().getBytes(UTF_8))
          .isEqualTo(expected.get(i).get("value").asText().getBytes(UTF_8));
    }
    assertThat(snapshot.entries().get(0).key())
        .isEqualTo(
            "CLOUD_INIT|1795322355|start|azure-ds/crawl_metadata|d1762392-f89f-45d2-8fa2-324453946ffe");
    assertThat(snapshot.entries().get(11).key())
        .endsWith("|compressed|dmesg|9bc03463-ee17-4ae3-9f92-3d7b71104e4b|2");
  }

  @Test
  void encode_ofDecodedCloudInitRecords_reproducesTheFileExactly() throws IOException {
    byte[] pool = Fixtures.bytes(Fixtures.CLOUD_INIT_POOL);
    List<PoolEntry> entries = RecordCodec.decode(pool).entries();

    for (PoolEntry entry : entries) {
      byte[] slice =
          Arrays.copyOfRange(pool, (int) entry.offset(), (int) entry.offset() + RECORD_SIZE);
      assertThat(RecordCodec.encode(entry.record(), KvpLimits.WIRE)).isEqualTo(slice);
    }
  }

  @Test
  void encode_placesKeyAndValueInNulPaddedFields() {
    byte[] bytes = RecordCodec.encode(new KvpRecord("clé", "valeur é"), KvpLimits.HOST_SAFE);

    assertThat(bytes).hasSize(RECORD_SIZE);
    assertThat(Arrays.copyOfRange(bytes, 0, 4)).isEqualTo("clé".getBytes(UTF_8));
    assertThat(Arrays.copyOfRange(bytes, 4, KEY_SIZE)).containsOnly(0);
    assertThat(Arrays.copyOfRange(bytes, KEY_SIZE, KEY_SIZE + 9))
        .isEqualTo("valeur é".getBytes(UTF_8));
    assertThat(Arrays.copyOfRange(bytes, KEY_SIZE + 9, RECORD_SIZE)).containsOnly(0);
  }

  @Test
  void encode_hostSafe_acceptsExactLimits_andRejectsOneByteMore_namingTheLimit() {
    String key254 = "k".repeat(254);
    String value1022 = "é".repeat(511);
    assertThat(RecordCodec.encode(new KvpRecord(key254, value1022), KvpLimits.HOST_SAFE))
        .hasSize(RECORD_SIZE);

    assertThatThrownBy(
            () -> RecordCodec.encode(new KvpRecord(key254 + "k", "v"), KvpLimits.HOST_SAFE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("key is 255 bytes of UTF-8; the host-safe limit is 254 bytes");
    assertThatThrownBy(
            () -> RecordCodec.encode(new KvpRecord("k", value1022 + "x"), KvpLimits.HOST_SAFE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("value is 1023 bytes of UTF-8; the host-safe limit is 1022 bytes");
  }

  @Test
  void encode_wire_keepsANulInEachField() {
    assertThat(RecordCodec.encode(new KvpRecord("k".repeat(511), "v".repeat(2047)), KvpLimits.WIRE))
        .satisfies(b -> assertThat(b[511]).isZero())
        .satisfies(b -> assertThat(b[RECORD_SIZE - 1]).isZero());
    assertThatThrownBy(
            () -> RecordCodec.encode(new KvpRecord("k".repeat(512), "v"), KvpLimits.WIRE))
        .hasMessage("key is 512 bytes of UTF-8; the wire limit is 511 bytes");
    assertThatThrownBy(
            () -> RecordCodec.encode(new KvpRecord("k", "v".repeat(2048)), KvpLimits.WIRE))
        .hasMessageContaining("the wire limit is 2047 bytes");
  }

  @Test
  void encode_rejectsWhatCouldNotComeBackUnchanged() {
    assertThatThrownBy(() -> RecordCodec.encode(new KvpRecord("a\0b", "v"), KvpLimits.HOST_SAFE))
        .hasMessageContaining("key contains a NUL character at index 1");
    assertThatThrownBy(
            () -> RecordCodec.encode(new KvpRecord("k", "x\uD800y"), KvpLimits.HOST_SAFE))
        .hasMessageContaining("value contains an unpaired surrogate at index 1");
    assertThatThrownBy(() -> RecordCodec.encode(new KvpRecord("k", "\uDC00"), KvpLimits.HOST_SAFE))
        .hasMessageContaining("unpaired surrogate at index 0");
    assertThat(RecordCodec.encode(new KvpRecord("k", "😀"), KvpLimits.HOST_SAFE)).isNotNull();
  }

  @Test
  void decode_ignoresBytesAfterTheFirstNul() {
    byte[] record = RecordCodec.encode(new KvpRecord("key", "value"), KvpLimits.HOST_SAFE);
    record[10] = 'G';
    record[KEY_SIZE + 100] = (byte) 0xFF;

    PoolSnapshot snapshot = RecordCodec.decode(record);

    assertThat(snapshot.problems()).isEmpty();
    assertThat(snapshot.records()).containsExactly(new KvpRecord("key", "value"));
  }

  @Test
  void decode_reportsEachDamagedFieldAtItsOffset_andStillReturnsEveryRecord() {
    byte[] pool = new byte[4 * RECORD_SIZE + 100];
    put(pool, 0, "first", "ok");
    // Record 1: a key with no NUL at all.
    Arrays.fill(pool, RECORD_SIZE, RECORD_SIZE + KEY_SIZE, (byte) 'K');
    put(pool, 2, "third", "ok");
    // Record 2's value: "ab" then a lone continuation byte at value byte 2.
    pool[2 * RECORD_SIZE + KEY_SIZE] = 'a';
    pool[2 * RECORD_SIZE + KEY_SIZE + 1] = 'b';
    pool[2 * RECORD_SIZE + KEY_SIZE + 2] = (byte) 0x80;
    put(pool, 3, "fourth", "ok");

    PoolSnapshot snapshot = RecordCodec.decode(pool);

    assertThat(snapshot.entries()).extracting(PoolEntry::index).containsExactly(0, 1, 2, 3);
    assertThat(snapshot.entries())
        .extracting(PoolEntry::intact)
        .containsExactly(true, false, false, true);
    assertThat(snapshot.entries().get(1).key()).isEqualTo("K".repeat(KEY_SIZE));
    assertThat(snapshot.entries().get(2).value()).isEqualTo("ab\uFFFD");
    assertThat(snapshot.entries().get(3).record()).isEqualTo(new KvpRecord("fourth", "ok"));
    assertThat(snapshot.problems())
        .extracting(KvpProblem::kind, KvpProblem::offset, KvpProblem::recordIndex)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                KvpProblem.Kind.KEY_NOT_TERMINATED, (long) RECORD_SIZE, 1),
            org.assertj.core.groups.Tuple.tuple(
                KvpProblem.Kind.VALUE_INVALID_UTF8, 2L * RECORD_SIZE + KEY_SIZE + 2, 2),
            org.assertj.core.groups.Tuple.tuple(
                KvpProblem.Kind.TRAILING_PARTIAL_RECORD, 4L * RECORD_SIZE, 4));
    assertThat(snapshot.problems().get(1).detail()).contains("0x80").contains("byte 2");
    assertThat(snapshot.problems().get(2).detail()).contains("100 bytes");
  }

  @Test
  void decode_reportsAnEmptyKey_andAValueWithNoNul() {
    byte[] pool = new byte[RECORD_SIZE];
    Arrays.fill(pool, KEY_SIZE, RECORD_SIZE, (byte) 'v');

    PoolSnapshot snapshot = RecordCodec.decode(pool);

    assertThat(snapshot.problems())
        .extracting(KvpProblem::kind)
        .containsExactly(KvpProblem.Kind.VALUE_NOT_TERMINATED, KvpProblem.Kind.EMPTY_KEY);
    assertThat(snapshot.entries().get(0).value()).hasSize(2048);
  }

  @Test
  void decode_invalidUtf8InKey_pointsAtTheBadByte() {
    byte[] pool = new byte[RECORD_SIZE];
    byte[] key = {'a', (byte) 0xE2, (byte) 0x82, 'b'}; // truncated 3-byte sequence
    System.arraycopy(key, 0, pool, 0, key.length);

    KvpProblem problem = RecordCodec.decode(pool).problems().get(0);

    assertThat(problem.kind()).isEqualTo(KvpProblem.Kind.KEY_INVALID_UTF8);
    assertThat(problem.offset()).isEqualTo(1);
  }

  @Test
  void decode_emptyInput_isAnEmptyHealthyPool() {
    assertThat(RecordCodec.decode(new byte[0])).isEqualTo(new PoolSnapshot(List.of(), List.of()));
  }

  private static void put(byte[] pool, int index, String key, String value) {
    byte[] record = RecordCodec.encode(new KvpRecord(key, value), KvpLimits.HOST_SAFE);
    System.arraycopy(record, 0, pool, index * RECORD_SIZE, RECORD_SIZE);
  }
}
