package dev.kvprov.kvp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real writer processes, each locking the way it does in the field, on one pool file. */
class ConcurrentWritersTest {
  private static final int PER_WRITER = 3000;
  private static final int MAX_BATCH = 40;

  /**
   * Every writer's records are written in rounds that start together: on a loaded machine one
   * writer could otherwise finish before the next is scheduled, and nothing would be concurrent.
   */
  private static final int ROUNDS = 10;

  @TempDir Path dir;

  @Test
  void twoOfOurJvms_aFlockWriter_andAnFcntlWriter_loseAndTearNothing() throws Exception {
    Path file = dir.resolve(".kvp_pool_1");
    String count = String.valueOf(PER_WRITER);
    String batch = String.valueOf(MAX_BATCH);
    String rounds = String.valueOf(ROUNDS);
    try (Peers.Peer jvmA =
            Peers.jvm(
                PoolWriterMain.class,
                List.of(),
                file.toString(),
                "jvmA",
                count,
                batch,
                "0",
                rounds);
        Peers.Peer jvmB =
            Peers.jvm(
                PoolWriterMain.class,
                List.of(),
                file.toString(),
                "jvmB",
                count,
                batch,
                "0",
                rounds);
        Peers.Peer cloudInitStyle =
            Peers.python("append-flock", file.toString(), "flock", count, rounds);
        Peers.Peer daemonStyle =
            Peers.python("append-fcntl", file.toString(), "fcntl", count, rounds)) {
      List<Peers.Peer> all = List.of(jvmA, jvmB, cloudInitStyle, daemonStyle);
      for (Peers.Peer peer : all) {
        peer.expectLine("ready");
      }
      for (int round = 1; round <= ROUNDS; round++) {
        if (round > 1) {
          for (Peers.Peer peer : all) {
            peer.expectLine("round");
          }
        }
        for (Peers.Peer peer : all) {
          peer.send("go");
        }
      }
      for (Peers.Peer peer : all) {
        peer.awaitSuccess(120);
      }
    }

    PoolSnapshot snapshot = PoolFile.builder().file(file).build().read();

    assertThat(snapshot.problems()).isEmpty();
    assertThat(snapshot.entries()).hasSize(4 * PER_WRITER);
    Map<String, Map<Integer, Integer>> positions =
        PoolVerifier.positions(snapshot, List.of("jvmA", "jvmB", "flock", "fcntl"));
    for (String writer : List.of("jvmA", "jvmB", "flock", "fcntl")) {
      PoolVerifier.assertComplete(positions, writer, PER_WRITER);
    }
    PoolVerifier.assertBatchesContiguous(positions.get("jvmA"), PER_WRITER, MAX_BATCH);
    PoolVerifier.assertBatchesContiguous(positions.get("jvmB"), PER_WRITER, MAX_BATCH);
    // Each round's records all land before the next round starts, and each round holds all four
    // writers' records: at least three switches a round, however the machine schedules them
    // (an unloaded machine makes hundreds).
    assertThat(PoolVerifier.writerSwitches(snapshot))
        .as("every round, the writers' records follow one another")
        .isGreaterThanOrEqualTo(3 * ROUNDS);
  }

  @Test
  void aFlockHolder_blocksOurWriter_untilItLetsGo() throws Exception {
    PoolFile pool = PoolFile.builder().file(dir.resolve(".kvp_pool_1")).build();

    appendWhileHeld(pool, "flock");

    assertThat(pool.read().records())
        .extracting(KvpRecord::key)
        .containsExactly("holder|flock", "ours");
  }

  @Test
  void anFcntlHolderRewritingThePool_blocksOurWriter_soNothingIsLost() throws Exception {
    PoolFile pool = PoolFile.builder().file(dir.resolve(".kvp_pool_1")).build();
    pool.append(List.of(new KvpRecord("before-1", "x"), new KvpRecord("before-2", "y")));

    // Like hv_kvp_daemon, the holder rewrites the whole file from what it read under its lock:
    // an append that slipped in meanwhile would be overwritten.
    appendWhileHeld(pool, "fcntl");

    assertThat(pool.read().records())
        .extracting(KvpRecord::key)
        .containsExactly("before-1", "before-2", "holder|fcntl", "ours");
  }

  /** Starts our append while a {@code kind} holder has the lock; checks it waits, then lets go. */
  private static void appendWhileHeld(PoolFile pool, String kind) throws Exception {
    try (Peers.Peer holder = Peers.python("hold-" + kind, pool.path().toString())) {
      holder.expectLine("locked");

      CompletableFuture<Void> ours = appendAsync(pool, new KvpRecord("ours", "after the holder"));
      Thread.sleep(300);
      assertThat(ours).as("our append waits while the %s lock is held", kind).isNotDone();

      holder.send("release");
      holder.expectLine("released");
      ours.get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aLockHeldTooLong_givesAClearErrorWithinTheTimeout_namingTheLockFamily() throws Exception {
    Path file = dir.resolve(".kvp_pool_1");
    PoolFile pool = PoolFile.builder().file(file).lockTimeout(Duration.ofMillis(300)).build();
    for (String kind : List.of("flock", "fcntl")) {
      try (Peers.Peer holder = Peers.python("hold-" + kind, file.toString())) {
        holder.expectLine("locked");

        assertThatThrownBy(() -> pool.append(new KvpRecord("ours", "v")))
            .isInstanceOf(PoolLockTimeoutException.class)
            .hasMessageContaining("timed out after 300 ms")
            .hasMessageContaining(file.toString())
            .hasMessageContaining(kind + " holder");
        assertThatThrownBy(pool::read).isInstanceOf(PoolLockTimeoutException.class);

        holder.send("release");
        holder.expectLine("released");
      }
    }
    pool.append(new KvpRecord("ours", "v"));
    assertThat(pool.read().records())
        .extracting(KvpRecord::key)
        .containsExactly("holder|flock", "holder|fcntl", "ours");
  }

  private static CompletableFuture<Void> appendAsync(PoolFile pool, KvpRecord record) {
    return CompletableFuture.runAsync(
        () -> {
          try {
            pool.append(record);
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });
  }
}
