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
    assertThat(afterCrash.problems())
        .allMatch(p -> p.kind() == KvpProblem.Kind.TRAILING_PARTIAL_RECORD);
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
}
