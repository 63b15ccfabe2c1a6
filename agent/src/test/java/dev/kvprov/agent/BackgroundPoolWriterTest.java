package dev.kvprov.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvprov.fixtures.HeldPool;
import dev.kvprov.kvp.KvpLimits;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.RecordCodec;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The background writer: a real {@code kvprov late-records} process that outlives the run, against
 * a pool another writer holds locked.
 */
class BackgroundPoolWriterTest {
  @TempDir Path dir;

  private static final List<KvpRecord> APPENDS =
      List.of(new KvpRecord("late-1", "one"), new KvpRecord("late-2", "two"));
  private static final List<KvpRecord> REPORT =
      List.of(new KvpRecord("PROVISIONING_REPORT", "result=success|agent=kvprov/test"));

  private BackgroundPoolWriter writer(Duration wait, Path log) {
    return new BackgroundPoolWriter(wait, Optional.empty(), Optional.empty(), log, Map.of());
  }

  @Test
  void aPoolReleasedLater_getsTheRecordsInOrder_andTheReportInPlaceOfTheOldOne() throws Exception {
    PoolFile pool = PoolFile.builder().directory(dir).build();
    pool.append(new KvpRecord("PROVISIONING_REPORT", "result=error|reason=an earlier attempt"));
    pool.append(new KvpRecord("someone-else", "x"));
    Path log = dir.resolve("state/late-records.log");
    String who;
    try (HeldPool held = HeldPool.hold(pool.path())) {
      who = writer(Duration.ofSeconds(60), log).takeOver(pool, APPENDS, REPORT);
      Thread.sleep(500);
      // Taken, and still waiting for the lock.
      assertThat(ProcessHandle.of(pid(who)).map(ProcessHandle::isAlive)).contains(true);
    }
    long pid = pid(who);
    assertThat(who)
        .isEqualTo(
            "a background writer (pid "
                + pid
                + ") that waits up to 60 s for the lock; it logs to "
                + log);
    awaitExit(pid);

    assertThat(pool.read().records())
        .extracting(r -> r.key() + "=" + r.value())
        .containsExactly(
            "PROVISIONING_REPORT=result=success|agent=kvprov/test",
            "someone-else=x",
            "late-1=one",
            "late-2=two");
    assertThat(Files.readAllLines(log))
        .singleElement()
        .asString()
        .startsWith(
            "kvprov late-records: wrote 2 record(s) and the provisioning report to "
                + pool.path()
                + ", ");
  }

  @Test
  void aPoolHeldPastTheWait_isLeftAlone_andTheLogSaysWhatWasLost() throws Exception {
    PoolFile pool = PoolFile.builder().directory(dir).build();
    pool.append(new KvpRecord("someone-else", "x"));
    Path log = dir.resolve("late-records.log");
    try (HeldPool held = HeldPool.hold(pool.path())) {
      String who = writer(Duration.ofMillis(500), log).takeOver(pool, APPENDS, REPORT);
      awaitExit(pid(who));
    }

    assertThat(pool.read().records()).extracting(KvpRecord::key).containsExactly("someone-else");
    assertThat(Files.readAllLines(log))
        .singleElement()
        .asString()
        .matches(
            "kvprov late-records: gave up after \\d+\\.\\d s: "
                + java.util.regex.Pattern.quote(pool.path().toString())
                + " stayed locked by another writer; 2 record\\(s\\) and the provisioning report"
                + " are lost");
  }

  @Test
  void aStalePoolIsArchivedAndClearedFirst_asTheRunWouldHaveDone() throws Exception {
    PoolFile pool = PoolFile.builder().directory(dir).build();
    pool.append(new KvpRecord("last-boot", "x"));
    Files.setLastModifiedTime(
        pool.path(), java.nio.file.attribute.FileTime.from(Instant.parse("2026-01-01T00:00:00Z")));
    Path archive = dir.resolve("archive");
    String who =
        new BackgroundPoolWriter(
                Duration.ofSeconds(30),
                Optional.of(archive),
                Optional.of(Instant.parse("2026-02-01T00:00:00Z")),
                dir.resolve("late-records.log"),
                Map.of())
            .takeOver(pool, APPENDS, REPORT);
    awaitExit(pid(who));

    assertThat(pool.read().records())
        .extracting(KvpRecord::key)
        .containsExactly("late-1", "late-2", "PROVISIONING_REPORT");
    try (var archived = Files.list(archive)) {
      assertThat(archived).hasSize(1);
    }
  }

  @Test
  void theWritersInput_isWholeUndamagedRecordsOnly() {
    byte[] one = RecordCodec.encode(new KvpRecord("k", "v"), KvpLimits.HOST_SAFE);
    assertThatThrownBy(
            () -> LateRecordsCommand.read(new ByteArrayInputStream(Arrays.copyOf(one, 100))))
        .isInstanceOf(IOException.class)
        .hasMessage("the input ends inside a record");
    byte[] damaged = one.clone();
    damaged[0] = 0; // an empty key
    assertThatThrownBy(() -> LateRecordsCommand.read(new ByteArrayInputStream(damaged)))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("a record is damaged: ");
  }

  private static long pid(String who) {
    return Long.parseLong(who.replaceAll(".*\\(pid (\\d+)\\).*", "$1"));
  }

  /** Waits (at most a minute) for the writer to end. */
  private static void awaitExit(long pid) throws Exception {
    Optional<ProcessHandle> process = ProcessHandle.of(pid);
    if (process.isPresent()) {
      process.get().onExit().get(60, java.util.concurrent.TimeUnit.SECONDS);
    }
  }
}
