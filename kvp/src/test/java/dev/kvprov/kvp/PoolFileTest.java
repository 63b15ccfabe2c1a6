package dev.kvprov.kvp;

import static dev.kvprov.kvp.RecordCodec.RECORD_SIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PoolFileTest {
  @TempDir Path dir;

  private PoolFile pool() {
    return PoolFile.open(dir.resolve("hyperv"), 1);
  }

  private static List<KvpRecord> records(String... keys) {
    return java.util.Arrays.stream(keys).map(k -> new KvpRecord(k, "v-" + k)).toList();
  }

  @Test
  void append_createsPoolAndDirectory_readableLikeTheDaemons_andReadsBackInOrder()
      throws IOException {
    PoolFile pool = pool();

    pool.append(records("a", "b"));
    pool.append(new KvpRecord("c", "é"));

    assertThat(pool.path()).isEqualTo(dir.resolve("hyperv/.kvp_pool_1"));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(pool.path())))
        .isEqualTo("rw-r--r--");
    assertThat(Files.size(pool.path())).isEqualTo(3L * RECORD_SIZE);
    PoolSnapshot snapshot = pool.read();
    assertThat(snapshot.problems()).isEmpty();
    assertThat(snapshot.records())
        .containsExactly(
            new KvpRecord("a", "v-a"), new KvpRecord("b", "v-b"), new KvpRecord("c", "é"));
  }

  @Test
  void append_existingFile_keepsItsMode() throws IOException {
    PoolFile pool = pool();
    Files.createDirectories(pool.path().getParent());
    Files.createFile(
        pool.path(),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r--r--")));

    pool.append(records("a"));

    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(pool.path())))
        .isEqualTo("rw-r--r--");
  }

  @Test
  void append_batchWithOneInvalidRecord_writesNothing() throws IOException {
    PoolFile pool = pool();
    pool.append(records("first"));

    assertThatThrownBy(
            () ->
                pool.append(List.of(new KvpRecord("ok", "v"), new KvpRecord("k".repeat(255), "v"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("host-safe limit is 254");

    assertThat(pool.read().records()).containsExactly(new KvpRecord("first", "v-first"));
  }

  @Test
  void append_afterATornWrite_cutsTheTornBytes_soRecordsStayAligned() throws IOException {
    PoolFile pool = pool();
    pool.append(records("a"));
    Files.write(pool.path(), new byte[] {'t', 'o', 'r', 'n'}, StandardOpenOption.APPEND);
    assertThat(pool.read().problems())
        .extracting(KvpProblem::kind)
        .containsExactly(KvpProblem.Kind.TRAILING_PARTIAL_RECORD);

    pool.append(records("b"));

    PoolSnapshot snapshot = pool.read();
    assertThat(snapshot.problems()).isEmpty();
    assertThat(snapshot.records()).extracting(KvpRecord::key).containsExactly("a", "b");
  }

  @Test
  void sync_forcesAnExistingPool_andIgnoresAMissingOne() throws IOException {
    PoolFile pool = pool();
    pool.sync();
    pool.append(records("a"));

    pool.sync();

    assertThat(pool.read().records()).hasSize(1);
  }

  @Test
  void read_missingPool_saysSo() {
    assertThatThrownBy(() -> pool().read()).isInstanceOf(NoSuchFileException.class);
  }

  @Test
  void upsert_replacesInPlace_keepingOrder() throws IOException {
    PoolFile pool = pool();
    pool.append(records("a", "REPORT", "b"));

    boolean replaced = pool.upsert(new KvpRecord("REPORT", "second"));

    assertThat(replaced).isTrue();
    assertThat(pool.read().records())
        .containsExactly(
            new KvpRecord("a", "v-a"),
            new KvpRecord("REPORT", "second"),
            new KvpRecord("b", "v-b"));
  }

  @Test
  void upsert_ofANewKey_appends_andCreatesThePool() throws IOException {
    PoolFile pool = pool();

    assertThat(pool.upsert(new KvpRecord("REPORT", "first"))).isFalse();
    assertThat(pool.upsert(new KvpRecord("REPORT", "second"))).isTrue();

    assertThat(pool.read().records()).containsExactly(new KvpRecord("REPORT", "second"));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(pool.path())))
        .isEqualTo("rw-r--r--");
  }

  @Test
  void upsert_collapsesDuplicates_toOneRecordAtTheFirstPlace() throws IOException {
    PoolFile pool = pool();
    pool.append(records("R", "a", "R", "b", "R", "REPORT_LONGER"));

    pool.upsert(new KvpRecord("R", "only"));

    assertThat(pool.read().records())
        .containsExactly(
            new KvpRecord("R", "only"),
            new KvpRecord("a", "v-a"),
            new KvpRecord("b", "v-b"),
            new KvpRecord("REPORT_LONGER", "v-REPORT_LONGER"));
  }

  @Test
  void delete_shiftsLaterRecordsUp_andCountsWhatWentAway() throws IOException {
    PoolFile pool = pool();
    String[] keys =
        IntStream.range(0, 600)
            .mapToObj(i -> i % 250 == 7 ? "gone" : "k" + i)
            .toArray(String[]::new);
    pool.append(records(keys));

    int deleted = pool.delete("gone");

    assertThat(deleted).isEqualTo(3);
    assertThat(Files.size(pool.path())).isEqualTo(597L * RECORD_SIZE);
    assertThat(pool.read().records())
        .extracting(KvpRecord::key)
        .containsExactly(
            java.util.Arrays.stream(keys).filter(k -> !k.equals("gone")).toArray(String[]::new));
  }

  @Test
  void delete_matchesWholeKeysOnly_andMissingIsZero() throws IOException {
    PoolFile pool = pool();
    assertThat(pool.delete("x")).isZero();
    pool.append(records("key", "keyed", "ke"));

    assertThat(pool.delete("nothing")).isZero();
    assertThat(pool.delete("key")).isEqualTo(1);

    assertThat(pool.read().records()).extracting(KvpRecord::key).containsExactly("keyed", "ke");
  }

  @Test
  void delete_keepsATornTailAsItWas() throws IOException {
    PoolFile pool = pool();
    pool.append(records("a", "b"));
    Files.write(pool.path(), new byte[] {1, 2, 3}, StandardOpenOption.APPEND);

    pool.delete("a");

    assertThat(Files.size(pool.path())).isEqualTo(RECORD_SIZE + 3L);
    assertThat(pool.read().records()).extracting(KvpRecord::key).containsExactly("b");
  }

  @Test
  void clearIfStale_leavesAPoolWrittenThisBoot() throws IOException {
    PoolFile pool = pool();
    pool.append(records("a"));
    Instant boot = Instant.now().minusSeconds(60);

    StaleClearResult result = pool.clearIfStale(boot);

    assertThat(result.outcome()).isEqualTo(StaleClearResult.Outcome.FRESH);
    assertThat(pool.read().records()).hasSize(1);
  }

  @Test
  void clearIfStale_archivesThenEmptiesAPoolFromAnEarlierBoot() throws IOException {
    Path archiveDir = dir.resolve("archive");
    PoolFile pool =
        PoolFile.builder().directory(dir.resolve("hyperv")).archive(archiveDir, 5).build();
    pool.append(records("old-1", "old-2"));
    byte[] before = Files.readAllBytes(pool.path());
    Instant boot = Instant.ofEpochSecond(Instant.now().getEpochSecond() - 100);
    Files.setLastModifiedTime(pool.path(), FileTime.from(boot)); // mtime == boot: stale (<=)

    StaleClearResult result = pool.clearIfStale(boot);

    assertThat(result.outcome()).isEqualTo(StaleClearResult.Outcome.CLEARED);
    assertThat(result.recordsCleared()).isEqualTo(2);
    Path copy = result.archive().orElseThrow();
    assertThat(copy).isEqualTo(archiveDir.resolve("pool1-" + boot.getEpochSecond() + ".kvp"));
    assertThat(Files.readAllBytes(copy)).isEqualTo(before);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(copy)))
        .isEqualTo("rw-------");
    assertThat(Files.size(pool.path())).isZero();
    assertThat(Files.getLastModifiedTime(pool.path()).toInstant()).isAfter(boot);
    assertThat(pool.clearIfStale(boot).outcome()).isEqualTo(StaleClearResult.Outcome.FRESH);
    try (var files = Files.list(archiveDir)) {
      assertThat(files).containsExactly(copy);
    }
  }

  @Test
  void clearIfStale_keepsOnlyTheNewestArchives() throws IOException {
    Path archiveDir = dir.resolve("archive");
    PoolFile pool =
        PoolFile.builder().directory(dir.resolve("hyperv")).archive(archiveDir, 3).build();
    for (long boot = 1000; boot < 1006; boot++) {
      pool.append(records("boot-" + boot));
      Files.setLastModifiedTime(pool.path(), FileTime.from(Instant.ofEpochSecond(boot - 1)));
      pool.clearIfStale(Instant.ofEpochSecond(boot));
    }

    try (var files = Files.list(archiveDir)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder("pool1-1003.kvp", "pool1-1004.kvp", "pool1-1005.kvp");
    }
    byte[] newest = Files.readAllBytes(archiveDir.resolve("pool1-1005.kvp"));
    assertThat(RecordCodec.decode(newest).records()).containsExactly(records("boot-1005").get(0));
  }

  @Test
  void clearIfStale_withoutArchive_emptiesOnly_andAbsentPoolIsAbsent() throws IOException {
    PoolFile pool = pool();
    assertThat(pool.clearIfStale(Instant.now()).outcome())
        .isEqualTo(StaleClearResult.Outcome.ABSENT);
    pool.append(records("a"));
    Files.setLastModifiedTime(pool.path(), FileTime.from(Instant.ofEpochSecond(10)));

    StaleClearResult result = pool.clearIfStale(Instant.ofEpochSecond(20));

    assertThat(result)
        .isEqualTo(
            new StaleClearResult(
                StaleClearResult.Outcome.CLEARED,
                1,
                java.util.Optional.empty(),
                java.util.Optional.empty()));
    assertThat(Files.size(pool.path())).isZero();
  }

  @Test
  void clearIfStale_whenTheArchiveCannotBeWritten_stillEmptiesThePool_andSaysWhy()
      throws IOException {
    Path blocker = dir.resolve("not-a-dir");
    Files.writeString(blocker, "a file where the archive directory should be");
    PoolFile pool = PoolFile.builder().directory(dir.resolve("hyperv")).archive(blocker, 5).build();
    pool.append(records("last boot's"));
    Files.setLastModifiedTime(pool.path(), FileTime.from(Instant.ofEpochSecond(10)));

    StaleClearResult result = pool.clearIfStale(Instant.ofEpochSecond(20));

    // Last boot's records must not pass for this boot's in the pool the host reads.
    assertThat(result.outcome()).isEqualTo(StaleClearResult.Outcome.CLEARED);
    assertThat(result.archive()).isEmpty();
    assertThat(result.notArchived())
        .hasValueSatisfying(why -> assertThat(why).contains(blocker.toString()));
    assertThat(pool.read().records()).isEmpty();
  }

  @Test
  void clearIfStale_afterTheClockWentBack_keepsTheNewCopyEvenIfItsNameRanksOldest()
      throws IOException {
    Path archiveDir = dir.resolve("archive");
    PoolFile pool =
        PoolFile.builder().directory(dir.resolve("hyperv")).archive(archiveDir, 2).build();
    for (long boot : new long[] {5000, 5001, 10}) {
      pool.append(records("boot-" + boot));
      Files.setLastModifiedTime(pool.path(), FileTime.from(Instant.ofEpochSecond(boot - 1)));
      pool.clearIfStale(Instant.ofEpochSecond(boot));
    }

    try (var files = Files.list(archiveDir)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder("pool1-10.kvp", "pool1-5001.kvp");
    }
  }

  @Test
  void upsertAndDelete_matchKeysIgnoringAsciiCase_asTheHostDoes() throws IOException {
    PoolFile pool = pool();
    pool.append(records("Report", "other", "REPORT"));

    pool.upsert(new KvpRecord("report", "one"));

    assertThat(pool.read().records())
        .containsExactly(new KvpRecord("report", "one"), new KvpRecord("other", "v-other"));
    assertThat(pool.delete("OTHER")).isEqualTo(1);
    assertThat(pool.read().records()).containsExactly(new KvpRecord("report", "one"));
  }

  @Test
  void append_rejectsAnEmptyKey() {
    assertThatThrownBy(() -> pool().append(new KvpRecord("", "v")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("key is empty");
  }

  @Test
  void aPoolOperationInsideAScanOfTheSamePool_isRefused_andTheScanKeepsItsLocks()
      throws IOException {
    PoolFile pool = pool();
    pool.append(records("a", "b"));
    PoolFile alias = PoolFile.builder().file(dir.resolve("hyperv/../hyperv/.kvp_pool_1")).build();
    java.util.List<String> seen = new java.util.ArrayList<>();

    pool.scan(
        entry -> {
          seen.add(entry.key());
          assertThatThrownBy(() -> alias.append(records("nested")))
              .isInstanceOf(IllegalStateException.class)
              .hasMessageContaining("already in use by this thread");
        });

    assertThat(seen).containsExactly("a", "b");
    assertThat(pool.read().records()).extracting(KvpRecord::key).containsExactly("a", "b");
  }

  @Test
  void aSymlinkToThePool_sharesItsInProcessLock() throws Exception {
    PoolFile pool = pool();
    pool.append(records("a"));
    Path link = Files.createSymbolicLink(dir.resolve("link-to-pool"), pool.path());
    PoolFile viaLink =
        PoolFile.builder().file(link).lockTimeout(java.time.Duration.ofMillis(200)).build();
    java.util.concurrent.CountDownLatch scanning = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
    Thread scanner =
        new Thread(
            () -> {
              try {
                pool.scan(
                    entry -> {
                      scanning.countDown();
                      try {
                        done.await();
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                    });
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    scanner.start();
    try {
      scanning.await();

      assertThatThrownBy(() -> viaLink.append(records("b")))
          .isInstanceOf(PoolLockTimeoutException.class)
          .hasMessageContaining("timed out after 200 ms")
          .hasMessageContaining("another thread of this process");
    } finally {
      done.countDown();
      scanner.join();
    }
    viaLink.append(records("b"));
    assertThat(pool.read().records()).extracting(KvpRecord::key).containsExactly("a", "b");
  }

  @Test
  void builder_rejectsNonsense() {
    assertThatThrownBy(() -> PoolFile.builder().pool(4)).hasMessageContaining("pools 0 to 3");
    assertThatThrownBy(() -> PoolFile.builder().archive(dir, 0)).hasMessageContaining("at least 1");
    assertThatThrownBy(() -> PoolFile.builder().lockTimeout(java.time.Duration.ofSeconds(-1)))
        .hasMessageContaining("negative");
  }

  @Test
  void threadsOfOneProcess_shareAPoolSafely() throws Exception {
    PoolFile pool = pool();
    int threads = 8;
    int perThread = 200;
    var executor = java.util.concurrent.Executors.newFixedThreadPool(threads);
    try {
      var futures =
          IntStream.range(0, threads)
              .mapToObj(
                  t ->
                      executor.submit(
                          () -> {
                            for (int i = 0; i < perThread; i++) {
                              pool.append(new KvpRecord("t" + t + "-" + i, "x"));
                              if (i % 50 == 0) {
                                pool.read();
                              }
                            }
                            return null;
                          }))
              .toList();
      for (var f : futures) {
        f.get();
      }
    } finally {
      executor.shutdownNow();
    }
    PoolSnapshot snapshot = pool.read();
    assertThat(snapshot.problems()).isEmpty();
    assertThat(snapshot.records()).hasSize(threads * perThread);
    assertThat(snapshot.records().stream().map(KvpRecord::key).distinct())
        .hasSize(threads * perThread);
  }
}
