package dev.kvprov.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvprov.agent.state.VerdictGenerations;
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
    return writer(wait, log, VerdictGenerations.in(dir.resolve("state")));
  }

  /** A run's writer: {@code verdicts} holds the number the run took for its report, if any. */
  private static BackgroundPoolWriter writer(Duration wait, Path log, VerdictGenerations verdicts) {
    return new BackgroundPoolWriter(
        wait, Optional.empty(), Optional.empty(), log, Map.of(), verdicts);
  }

  private static final List<KvpRecord> FAILURE =
      List.of(
          new KvpRecord(
              "PROVISIONING_REPORT",
              "result=error|reason=Failed to fetch instance metadata|agent=kvprov/test"));

  /**
   * Two runs, one after the other, each with its report waiting for a held pool: the older failed,
   * the newer succeeded. Twenty races: in the even ones the test stops the older run's writer while
   * the lock is released and lets it go once the newer one has written (the order that lost the
   * newer verdict); in the odd ones the two race freely. Every one must end with the newer verdict,
   * and with both runs' records.
   */
  @Test
  void twentyRacesBetweenTwoRunsLateWriters_allEndWithTheNewerRunsReport() throws Exception {
    List<String> verdicts = new java.util.ArrayList<>();
    for (int race = 0; race < 20; race++) {
      Path at = Files.createDirectories(dir.resolve("race-" + race));
      Path state = at.resolve("state");
      Path log = at.resolve("late-records.log");
      PoolFile pool = PoolFile.builder().directory(at).build();
      pool.append(new KvpRecord("someone-else", "x"));
      long older;
      long newer;
      try (HeldPool held = HeldPool.hold(pool.path())) {
        VerdictGenerations olderRun = VerdictGenerations.in(state);
        olderRun.take();
        older =
            pid(
                writer(Duration.ofSeconds(60), log, olderRun)
                    .takeOver(pool, List.of(new KvpRecord("older", "run")), FAILURE));
        VerdictGenerations newerRun = VerdictGenerations.in(state);
        newerRun.take();
        newer =
            pid(
                writer(Duration.ofSeconds(60), log, newerRun)
                    .takeOver(pool, List.of(new KvpRecord("newer", "run")), REPORT));
        if (race % 2 == 0) {
          signal("-STOP", older);
          try {
            held.release();
            awaitExit(newer);
          } finally {
            signal("-CONT", older);
          }
        }
      }
      awaitExit(older);
      awaitExit(newer);
      List<KvpRecord> records = pool.read().records();
      assertThat(records)
          .extracting(KvpRecord::key)
          .as("race %d", race)
          .contains("someone-else", "older", "newer")
          .containsOnlyOnce("PROVISIONING_REPORT");
      verdicts.add(
          records.stream()
              .filter(r -> r.key().equals("PROVISIONING_REPORT"))
              .findFirst()
              .orElseThrow()
              .value());
      if (race % 2 == 0) {
        assertThat(Files.readString(log))
            .contains(
                "but not its provisioning report: a newer run has reported since (this run's"
                    + " report was number 1)");
      }
    }
    assertThat(verdicts).hasSize(20).allMatch(v -> v.equals(REPORT.get(0).value()));
  }

  /**
   * A writer whose run's number is no longer the newest, the newer run's report already in the pool
   * (written directly, the lock being free by then): the records go in, the report does not.
   */
  @Test
  void aReportSupersededBeforeItsWriterStarts_isNotWritten() throws Exception {
    PoolFile pool = PoolFile.builder().directory(dir).build();
    Path state = dir.resolve("state");
    VerdictGenerations olderRun = VerdictGenerations.in(state);
    olderRun.take();
    VerdictGenerations.in(state).take();
    pool.append(REPORT.get(0));

    Path log = dir.resolve("late-records.log");
    awaitExit(pid(writer(Duration.ofSeconds(30), log, olderRun).takeOver(pool, APPENDS, FAILURE)));

    assertThat(pool.read().records())
        .extracting(r -> r.key() + "=" + r.value())
        .containsExactly(
            "PROVISIONING_REPORT=result=success|agent=kvprov/test", "late-1=one", "late-2=two");
  }

  private static void signal(String signal, long pid) throws Exception {
    Process kill = new ProcessBuilder("kill", signal, Long.toString(pid)).inheritIO().start();
    assertThat(kill.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    assertThat(kill.exitValue()).isZero();
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
                Map.of(),
                VerdictGenerations.in(dir.resolve("state")))
            .takeOver(pool, APPENDS, REPORT);
    awaitExit(pid(who));

    assertThat(pool.read().records())
        .extracting(KvpRecord::key)
        .containsExactly("late-1", "late-2", "PROVISIONING_REPORT");
    try (var archived = Files.list(archive)) {
      assertThat(archived).hasSize(1);
    }
  }

  /**
   * The writer's JVM starts with the options the launchers start theirs with, read from the
   * repository's own files (bin/lib/jvm), not from the copy the build put in the jar: its command
   * line, as the kernel has it, while it waits for a held pool.
   */
  @Test
  void theWritersJvm_startsWithTheLaunchersOptions_fromBinLibJvm() throws Exception {
    List<String> expected = new java.util.ArrayList<>();
    for (String file : List.of("common.options", "late-records.options")) {
      for (String line : Files.readAllLines(Path.of("../bin/lib/jvm", file))) {
        if (!line.isBlank() && !line.startsWith("#")) {
          expected.addAll(List.of(line.strip().split("\\s+")));
        }
      }
    }
    assertThat(expected).contains("-XX:TieredStopAtLevel=1", "-Xlog:all=warning:stderr", "-Xmx64m");
    PoolFile pool = PoolFile.builder().directory(dir).build();
    pool.append(new KvpRecord("someone-else", "x"));
    List<String> command = writerCommand(pool);

    assertThat(command.subList(1, command.indexOf("-cp"))).isEqualTo(expected);
    assertThat(pool.read().records()).extracting(KvpRecord::key).contains("late-1", "late-2");
  }

  /**
   * On a VM the launcher hands JNA the package's native part and tells it not to unpack: the
   * writer's JVM gets the same, so a late boot leaves no copy in root's ~/.cache and still locks.
   */
  @Test
  void theWritersJvm_takesThePackagesJnaOptions_andUnpacksNothing() throws Exception {
    Path natives = Files.createDirectories(dir.resolve("native"));
    try (var in =
        BackgroundPoolWriterTest.class.getResourceAsStream(
            "/com/sun/jna/linux-x86-64/libjnidispatch.so")) {
      assertThat(in).as("JNA's native part for this machine, on the test class path").isNotNull();
      Files.copy(in, natives.resolve("libjnidispatch.so"));
    }
    PoolFile pool = PoolFile.builder().directory(dir).build();
    pool.append(new KvpRecord("someone-else", "x"));
    List<String> command;
    System.setProperty("jna.boot.library.path", natives.toString());
    System.setProperty("jna.nounpack", "true");
    try {
      command = writerCommand(pool);
    } finally {
      System.clearProperty("jna.boot.library.path");
      System.clearProperty("jna.nounpack");
    }

    assertThat(command)
        .contains("-Djna.boot.library.path=" + natives, "-Djna.nounpack=true")
        .doesNotContain("-Djna.tmpdir=");
    assertThat(command.indexOf("-Djna.nounpack=true")).isLessThan(command.indexOf("-cp"));
    assertThat(pool.read().records()).extracting(KvpRecord::key).contains("late-1", "late-2");
    // JNA found its native part where it was told: the writer took flock, not fcntl alone
    assertThat(dir.resolve("late-records.log"))
        .satisfiesAnyOf(
            log -> assertThat(log).doesNotExist(),
            log -> assertThat(Files.readString(log)).doesNotContain("flock unavailable"));
  }

  /**
   * A writer's command line, as its process was started: it takes over while another writer holds
   * {@code pool}, and has appended once this returns.
   */
  private List<String> writerCommand(PoolFile pool) throws Exception {
    List<String> command;
    long pid;
    try (HeldPool held = HeldPool.hold(pool.path())) {
      pid =
          pid(
              writer(Duration.ofSeconds(60), dir.resolve("late-records.log"))
                  .takeOver(pool, APPENDS, REPORT));
      command =
          List.of(Files.readString(Path.of("/proc", Long.toString(pid), "cmdline")).split("\0"));
    }
    awaitExit(pid);
    return command;
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
