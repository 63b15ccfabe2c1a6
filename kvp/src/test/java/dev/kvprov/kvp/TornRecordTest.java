package dev.kvprov.kvp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Part of a record left by a writer that died, with others' records written after it. */
class TornRecordTest {
  @TempDir Path dir;

  /** Ours (3 records), a write of ours cut after 1,536 bytes, then 10 of another writer's. */
  static byte[] tornInTheMiddle() {
    ByteArrayOutputStream pool = new ByteArrayOutputStream();
    for (int i = 0; i < 3; i++) {
      pool.writeBytes(RecordCodec.encode(PeerRecords.record("kvprov", i), KvpLimits.WIRE));
    }
    byte[] cut = RecordCodec.encode(PeerRecords.record("kvprov", 3), KvpLimits.WIRE);
    pool.writeBytes(Arrays.copyOf(cut, 1536));
    for (int i = 0; i < 10; i++) {
      pool.writeBytes(RecordCodec.encode(PeerRecords.record("cloud-init", i), KvpLimits.WIRE));
    }
    return pool.toByteArray();
  }

  private static List<String> keys(PoolSnapshot snapshot) {
    return snapshot.entries().stream().map(PoolEntry::key).toList();
  }

  @Test
  void aReader_passesOverThePart_andReadsEveryRecordAfterIt() throws Exception {
    byte[] bytes = tornInTheMiddle();
    Path file = dir.resolve(".kvp_pool_1");
    Files.write(file, bytes);

    for (PoolSnapshot snapshot :
        List.of(RecordCodec.decode(bytes), PoolFile.builder().file(file).build().read())) {
      assertThat(snapshot.entries()).hasSize(13).allMatch(PoolEntry::intact);
      assertThat(keys(snapshot).subList(3, 13)).allMatch(k -> k.startsWith("cloud-init|"));
      assertThat(snapshot.problems())
          .singleElement()
          .satisfies(
              p -> {
                assertThat(p.kind()).isEqualTo(KvpProblem.Kind.TORN_RECORD);
                assertThat(p.offset()).isEqualTo(3L * RecordCodec.RECORD_SIZE);
                assertThat(p.detail()).contains("1536 bytes");
              });
    }
  }

  @Test
  void theNextAppend_removesThePart_andKeepsEveryOtherWritersRecord() throws Exception {
    Path file = dir.resolve(".kvp_pool_1");
    Files.write(file, tornInTheMiddle());
    PoolFile pool = PoolFile.builder().file(file).build();

    pool.append(PeerRecords.record("kvprov", 4));

    PoolSnapshot after = pool.read();
    assertThat(after.problems()).isEmpty();
    assertThat(Files.size(file)).isEqualTo(14L * RecordCodec.RECORD_SIZE);
    assertThat(keys(after).get(13)).isEqualTo(PeerRecords.record("kvprov", 4).key());
    assertThat(keys(after).stream().filter(k -> k.startsWith("cloud-init|"))).hasSize(10);
  }

  @Test
  void aPartAtTheEnd_isCut_andADamagedRecordBeforeIt_isNoReasonToMoveAnything() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    bytes.writeBytes(RecordCodec.encode(PeerRecords.record("a", 0), KvpLimits.WIRE));
    byte[] damaged = RecordCodec.encode(PeerRecords.record("b", 0), KvpLimits.WIRE);
    damaged[2000] = 'x'; // garbage after the value's NUL: not well formed, but a whole record
    bytes.writeBytes(damaged);
    bytes.writeBytes(RecordCodec.encode(PeerRecords.record("c", 0), KvpLimits.WIRE));
    bytes.writeBytes(new byte[] {'k', 'v', 'p'});
    Path file = dir.resolve(".kvp_pool_1");
    Files.write(file, bytes.toByteArray());
    PoolFile pool = PoolFile.builder().file(file).build();

    assertThat(pool.read().problems())
        .extracting(KvpProblem::kind)
        .containsExactly(KvpProblem.Kind.TRAILING_PARTIAL_RECORD);
    pool.append(PeerRecords.record("d", 0));

    assertThat(keys(pool.read()))
        .containsExactly(
            PeerRecords.record("a", 0).key(),
            PeerRecords.record("b", 0).key(),
            PeerRecords.record("c", 0).key(),
            PeerRecords.record("d", 0).key());
  }

  @Test
  void aRecordWithGarbageAfterItsNul_beforeThePart_hidesNoRecordAfterIt() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    bytes.writeBytes(RecordCodec.encode(PeerRecords.record("a", 0), KvpLimits.WIRE));
    byte[] oldClient = RecordCodec.encode(PeerRecords.record("kvp_client", 0), KvpLimits.WIRE);
    oldClient[2000] = 'x'; // whole, but garbage after the value's NUL, as the old kvp_client left
    bytes.writeBytes(oldClient);
    byte[] cut = RecordCodec.encode(PeerRecords.record("kvprov", 3), KvpLimits.WIRE);
    bytes.writeBytes(Arrays.copyOf(cut, 700));
    for (int i = 0; i < 10; i++) {
      bytes.writeBytes(RecordCodec.encode(PeerRecords.record("cloud-init", i), KvpLimits.WIRE));
    }
    Path file = dir.resolve(".kvp_pool_1");
    Files.write(file, bytes.toByteArray());
    PoolFile pool = PoolFile.builder().file(file).build();

    assertThat(keys(pool.read()).subList(2, 12)).allMatch(k -> k.startsWith("cloud-init|"));
    pool.append(PeerRecords.record("d", 0));

    List<String> keys = keys(pool.read());
    assertThat(keys).hasSize(13).startsWith("a|0", "kvp_client|0").endsWith("d|0");
    assertThat(keys.subList(2, 12)).allMatch(k -> k.startsWith("cloud-init|"));
  }
}
