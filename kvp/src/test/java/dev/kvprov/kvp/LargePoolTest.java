package dev.kvprov.kvp;

import static dev.kvprov.kvp.RecordCodec.RECORD_SIZE;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A pool far larger than the reader's heap is scanned whole: memory stays flat. */
class LargePoolTest {
  private static final int RECORDS = 100_000; // 256 MB

  @TempDir Path dir;

  @Test
  void scan_of100kRecords_runsIn16MegabytesOfHeap() throws Exception {
    Path file = dir.resolve(".kvp_pool_1");
    writePool(file);

    try (Peers.Peer scanner =
        Peers.jvm(ScanMain.class, List.of("-Xmx16m", "-XX:+UseSerialGC"), file.toString())) {
      String result = scanner.readLine();
      scanner.awaitSuccess(120);
      assertThat(result).isEqualTo("entries=" + RECORDS + " problems=0 last=key-99999");
    }
  }

  private static void writePool(Path file) throws IOException {
    int perWrite = 1000;
    byte[] chunk = new byte[perWrite * RECORD_SIZE];
    try (FileChannel out =
        FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      for (int first = 0; first < RECORDS; first += perWrite) {
        java.util.Arrays.fill(chunk, (byte) 0);
        for (int i = 0; i < perWrite; i++) {
          RecordCodec.encodeInto(
              new KvpRecord("key-" + (first + i), "value ".repeat(50)),
              KvpLimits.HOST_SAFE,
              chunk,
              i * RECORD_SIZE);
        }
        ByteBuffer buffer = ByteBuffer.wrap(chunk);
        while (buffer.hasRemaining()) {
          out.write(buffer);
        }
      }
    }
  }

  /** Scans a pool with {@link PoolFile#scan} and prints what it saw. */
  public static final class ScanMain {
    public static void main(String[] args) throws IOException {
      long[] counts = new long[2];
      String[] last = new String[1];
      PoolFile.builder()
          .file(Path.of(args[0]))
          .build()
          .scan(
              new PoolVisitor() {
                @Override
                public void entry(PoolEntry entry) {
                  counts[0]++;
                  last[0] = entry.key();
                }

                @Override
                public void problem(KvpProblem problem) {
                  counts[1]++;
                }
              });
      System.out.println("entries=" + counts[0] + " problems=" + counts[1] + " last=" + last[0]);
    }
  }
}
