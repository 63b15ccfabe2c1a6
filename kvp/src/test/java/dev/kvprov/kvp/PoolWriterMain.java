package dev.kvprov.kvp;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A separate writer process for the multi-process tests: appends {@code COUNT} {@link PeerRecords}
 * in batches of 1 to {@code MAX_BATCH} records and prints {@code ack <last seq>} after each batch
 * returns. Waits for a line on stdin after printing {@code ready}, so several writers can be
 * started together.
 *
 * <p>Usage: {@code PoolWriterMain POOL WRITER COUNT MAX_BATCH}
 */
public final class PoolWriterMain {
  private PoolWriterMain() {}

  public static void main(String[] args) throws Exception {
    PoolFile pool = PoolFile.builder().file(Path.of(args[0])).build();
    String writer = args[1];
    int count = Integer.parseInt(args[2]);
    int maxBatch = Integer.parseInt(args[3]);
    boolean flock = PoolFile.flockAvailable(); // load native code before the start line
    System.out.println("ready");
    System.out.flush();
    new java.io.BufferedReader(
            new java.io.InputStreamReader(System.in, java.nio.charset.StandardCharsets.UTF_8))
        .readLine();
    int seq = 0;
    while (seq < count) {
      int size = Math.min(count - seq, 1 + (seq * 7) % maxBatch);
      List<KvpRecord> batch = new ArrayList<>(size);
      for (int i = 0; i < size; i++) {
        batch.add(PeerRecords.record(writer, seq + i));
      }
      pool.append(batch);
      seq += size;
      System.out.println("ack " + (seq - 1));
      System.out.flush();
    }
    System.out.println("done flock=" + flock);
  }
}
