package dev.kvprov.kvp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CrashTest {
  @TempDir Path dir;

  @Test
  void aWriterKilledMidStream_leavesEveryAcknowledgedBatch_andTheNextWriterStaysAligned()
      throws Exception {
    Path file = dir.resolve(".kvp_pool_1");
    int lastAcked = -1;
    try (Peers.Peer writer =
        Peers.jvm(PoolWriterMain.class, List.of(), file.toString(), "victim", "100000000", "64")) {
      writer.expectLine("ready");
      writer.send("go");
      for (int acks = 0; acks < 300; acks++) {
        String line = writer.readLine();
        assertThat(line).as("writer output").startsWith("ack ");
        lastAcked = Integer.parseInt(line.substring(4));
      }
      writer.process.destroyForcibly(); // SIGKILL, mid-stream
      writer.process.waitFor();
    }

    PoolFile pool = PoolFile.builder().file(file).build();
    PoolSnapshot afterCrash = pool.read();
    // SIGKILL may land inside a write: then, and only then, the file ends with a torn record.
    assertThat(afterCrash.problems()).hasSizeLessThanOrEqualTo(1);
    afterCrash
        .problems()
        .forEach(p -> assertThat(p.kind()).isEqualTo(KvpProblem.Kind.TRAILING_PARTIAL_RECORD));
    Map<Integer, Integer> seen =
        PoolVerifier.positions(afterCrash, List.of("victim")).get("victim");
    int written = afterCrash.entries().size();
    assertThat(written).isGreaterThan(lastAcked);
    // Every acknowledged record, and whatever followed, is a gap-free prefix in order.
    for (int seq = 0; seq < written; seq++) {
      assertThat(seen.get(seq)).as("record %d", seq).isEqualTo(seq);
    }

    pool.append(new KvpRecord("next-boot-writer", "aligned"));
    PoolSnapshot healed = pool.read();
    assertThat(healed.problems()).isEmpty();
    assertThat(healed.entries()).hasSize(written + 1);
    assertThat(healed.entries().get(written).key()).isEqualTo("next-boot-writer");
  }

  @Test
  void aForeignWriterThatDiedMidRecord_isCutOff_andLaterRecordsStayAligned() throws Exception {
    Path file = dir.resolve(".kvp_pool_1");
    PoolFile pool = PoolFile.builder().file(file).build();
    pool.append(PeerRecords.record("before", 0));
    try (Peers.Peer torn = Peers.python("append-torn", file.toString())) {
      torn.expectLine("ready");
      torn.send("go");
      assertThat(torn.process.waitFor()).as("the peer dies mid-record").isEqualTo(9);
    }
    assertThat(java.nio.file.Files.size(file)).isEqualTo(RecordCodec.RECORD_SIZE + 1000L);

    pool.append(PeerRecords.record("after", 0));

    PoolSnapshot snapshot = pool.read();
    assertThat(snapshot.problems()).isEmpty();
    assertThat(snapshot.records())
        .containsExactly(PeerRecords.record("before", 0), PeerRecords.record("after", 0));
  }
}
