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
 * <p>Usage: {@code PoolWriterMain POOL WRITER COUNT MAX_BATCH [PAUSE_MILLIS [ROUNDS]]}, the pause
 * taken between batches so that a run spans long enough to overlap slower writers. With {@code
 * ROUNDS} above 1, the records are written in that many rounds: after each but the last it prints
 * {@code round} and waits for another stdin line, so that a test can start every writer's round
 * together however busy the machine is.
 */
public final class PoolWriterMain {
  private PoolWriterMain() {}

  public static void main(String[] args) throws Exception {
    PoolFile pool = PoolFile.builder().file(Path.of(args[0])).build();
    String writer = args[1];
    int count = Integer.parseInt(args[2]);
    int maxBatch = Integer.parseInt(args[3]);
    long pauseMillis = args.length > 4 ? Long.parseLong(args[4]) : 0;
    int rounds = args.length > 5 ? Integer.parseInt(args[5]) : 1;
    boolean flock = PoolFile.flockAvailable();
    // Warm up (native code, class loading) before the start line, so writers started together
    // really write together.
    java.nio.file.Path scratch = java.nio.file.Files.createTempFile("kvp-warmup", ".pool");
    PoolFile.builder().file(scratch).build().append(PeerRecords.record("warmup", 0));
    java.nio.file.Files.delete(scratch);
    System.out.println("ready");
    System.out.flush();
    java.io.BufferedReader in =
        new java.io.BufferedReader(
            new java.io.InputStreamReader(System.in, java.nio.charset.StandardCharsets.UTF_8));
    in.readLine();
    int seq = 0;
    int round = 1;
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
      if (pauseMillis > 0) {
        Thread.sleep(pauseMillis);
      }
      if (round < rounds && seq >= (long) count * round / rounds) {
        round++;
        System.out.println("round");
        System.out.flush();
        in.readLine();
      }
    }
    System.out.println("done flock=" + flock);
  }
}
