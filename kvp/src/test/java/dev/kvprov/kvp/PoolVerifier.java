package dev.kvprov.kvp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Checks a pool written by {@link PeerRecords} writers: every record exact, none twice. */
final class PoolVerifier {
  private PoolVerifier() {}

  /** Positions in the pool of each writer's records, by sequence number. */
  static Map<String, Map<Integer, Integer>> positions(PoolSnapshot snapshot, List<String> writers) {
    Map<String, Map<Integer, Integer>> byWriter = new HashMap<>();
    writers.forEach(w -> byWriter.put(w, new HashMap<>()));
    for (PoolEntry entry : snapshot.entries()) {
      String key = entry.key();
      int bar = key.lastIndexOf('|');
      String writer = bar < 0 ? key : key.substring(0, bar);
      Map<Integer, Integer> seen = byWriter.get(writer);
      if (seen == null) {
        continue;
      }
      int seq = Integer.parseInt(key.substring(bar + 1));
      assertThat(entry.value()).as("value of %s", key).isEqualTo(PeerRecords.value(writer, seq));
      assertThat(seen.put(seq, entry.index())).as("%s written twice", key).isNull();
    }
    return byWriter;
  }

  /** Asserts writer {@code writer} has exactly sequence numbers 0..count-1, and returns them. */
  static Map<Integer, Integer> assertComplete(
      Map<String, Map<Integer, Integer>> positions, String writer, int count) {
    Map<Integer, Integer> seen = positions.get(writer);
    List<Integer> missing = new ArrayList<>();
    for (int seq = 0; seq < count; seq++) {
      if (!seen.containsKey(seq)) {
        missing.add(seq);
      }
    }
    assertThat(missing).as("records of %s lost", writer).isEmpty();
    assertThat(seen).as("records of %s", writer).hasSize(count);
    return seen;
  }

  /** How often consecutive records come from different writers: proof that writers overlapped. */
  static int writerSwitches(PoolSnapshot snapshot) {
    int switches = 0;
    String previous = null;
    for (PoolEntry entry : snapshot.entries()) {
      String key = entry.key();
      String writer =
          key.startsWith("CLOUD_INIT|")
              ? "CLOUD_INIT"
              : key.substring(0, Math.max(0, key.lastIndexOf('|')));
      if (previous != null && !previous.equals(writer)) {
        switches++;
      }
      previous = writer;
    }
    return switches;
  }

  /** The batch sizes {@link PoolWriterMain} uses, to check that each batch landed contiguously. */
  static void assertBatchesContiguous(Map<Integer, Integer> positions, int count, int maxBatch) {
    int seq = 0;
    while (seq < count) {
      int size = Math.min(count - seq, 1 + (seq * 7) % maxBatch);
      int first = positions.get(seq);
      for (int i = 1; i < size; i++) {
        assertThat(positions.get(seq + i))
            .as("record %d of the batch starting at seq %d", i, seq)
            .isEqualTo(first + i);
      }
      seq += size;
    }
  }
}
