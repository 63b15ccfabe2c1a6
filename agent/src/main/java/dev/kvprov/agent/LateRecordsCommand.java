package dev.kvprov.agent;

import dev.kvprov.agent.state.VerdictGenerations;
import dev.kvprov.kvp.IoErrors;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.PoolLockTimeoutException;
import dev.kvprov.kvp.PoolSnapshot;
import dev.kvprov.kvp.RecordCodec;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kvprov late-records}: the background writer {@link BackgroundPoolWriter} starts when the
 * pool stayed locked to the end of a run. It reads the records that waited (whole KVP records) on
 * stdin, waits for the pool's lock within its bound, and writes them: the appends in order, then
 * the upserts (the report). Hidden: nobody runs it by hand.
 */
@Command(
    name = "late-records",
    hidden = true,
    description = "Write records a locked pool kept out of a run (started by kvprov itself).")
final class LateRecordsCommand implements Callable<Integer> {
  /** More than the largest record budget needs: the input is our own, but still bounded. */
  static final int MAX_RECORDS = 100_016;

  static final String REPORT_KEY = "PROVISIONING_REPORT";

  /** What the writer says on stdout once it holds every record: the run may then end. */
  static final String TAKEN = "taken";

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(names = "--pool", required = true, description = "The pool file.")
  Path pool;

  @Option(names = "--wait-secs", required = true, description = "How long to wait for the lock.")
  double waitSecs;

  @Option(names = "--upserts", description = "How many of the last records replace by key.")
  int upserts;

  @Option(names = "--archive", description = "Archive a stale pool here before clearing it.")
  Path archive;

  @Option(names = "--boot-time", description = "Clear the pool first if written before this.")
  String bootTime;

  @Option(
      names = "--generation",
      description = "The number the run took for its report (see --state-directory).")
  Long generation;

  @Option(
      names = "--state-directory",
      description = "Where the newest report's number is kept: a newer one supersedes ours.")
  Path stateDirectory;

  /**
   * How long one try at the report waits for the pool while it holds the verdict lock: a newer run
   * waits at most this (and the write) to take its number.
   */
  static final Duration REPORT_TRY = Duration.ofMillis(200);

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    if ((generation == null) != (stateDirectory == null)) {
      err.println("kvprov late-records: --generation and --state-directory go together");
      return ExitCode.USAGE.code;
    }
    long started = System.nanoTime();
    long deadline = started + (long) (waitSecs * 1e9);
    List<KvpRecord> records;
    try {
      records = read(System.in);
    } catch (IOException e) {
      err.println("kvprov late-records: no records to write: " + e.getMessage());
      return ExitCode.USAGE.code;
    }
    System.out.println(TAKEN);
    System.out.flush();
    System.out.close();
    int upsertCount = Math.min(Math.max(upserts, 0), records.size());
    List<KvpRecord> appends = records.subList(0, records.size() - upsertCount);
    List<KvpRecord> replacing = records.subList(records.size() - upsertCount, records.size());
    String what = describe(appends, replacing);
    PoolFile.Builder builder = PoolFile.builder().file(pool).syncWrites(true);
    if (archive != null) {
      builder.archive(archive, PoolFile.DEFAULT_ARCHIVE_KEEP);
    }
    PoolFile file = builder.build();
    boolean superseded = false;
    try {
      if (bootTime != null) {
        within(file, deadline).clearIfStale(Instant.parse(bootTime));
      }
      if (!appends.isEmpty()) {
        within(file, deadline).append(appends);
      }
      for (KvpRecord record : replacing) {
        if (generation != null && record.key().equals(REPORT_KEY)) {
          superseded = !writeReport(file, record, deadline);
        } else {
          within(file, deadline).upsert(record);
        }
      }
    } catch (PoolLockTimeoutException e) {
      err.println(
          "kvprov late-records: gave up after "
              + seconds(System.nanoTime() - started)
              + ": "
              + pool
              + " stayed locked by another writer; "
              + what
              + " are lost");
      return ExitCode.FAILED.code;
    } catch (IOException e) {
      err.println(
          "kvprov late-records: " + what + " are lost: " + pool + ": " + IoErrors.reason(e));
      return ExitCode.FAILED.code;
    } catch (DateTimeParseException e) {
      err.println("kvprov late-records: --boot-time is not an instant: " + bootTime);
      return ExitCode.USAGE.code;
    }
    if (superseded) {
      err.println(
          "kvprov late-records: wrote "
              + appends.size()
              + " record(s) to "
              + pool
              + ", "
              + seconds(System.nanoTime() - started)
              + " after the run that made them, but not its provisioning report: a newer run has"
              + " reported since (this run's report was number "
              + generation
              + ")");
      return ExitCode.OK.code;
    }
    err.println(
        "kvprov late-records: wrote "
            + what
            + " to "
            + pool
            + ", "
            + seconds(System.nanoTime() - started)
            + " after the run that made them");
    return ExitCode.OK.code;
  }

  /**
   * The report, unless a newer run has taken a verdict number since ours: checked and written under
   * the verdict lock, so that a newer run's report, which takes its number first, always lands
   * after ours or finds ours not written. The wait for the pool happens outside that lock.
   *
   * @return false if a newer verdict supersedes this one (not written)
   */
  private boolean writeReport(PoolFile file, KvpRecord report, long deadline) throws IOException {
    VerdictGenerations verdicts = VerdictGenerations.in(stateDirectory);
    while (true) {
      within(file, deadline).sync(); // returns once the pool is free, or throws at the deadline
      try {
        return verdicts.writeUnlessSuperseded(
            generation, () -> file.withLockTimeout(REPORT_TRY).upsert(report));
      } catch (PoolLockTimeoutException e) {
        if (System.nanoTime() >= deadline) {
          throw e;
        }
      }
    }
  }

  /** The pool, with what is left of the wait as its lock timeout. */
  private static PoolFile within(PoolFile file, long deadline) {
    return file.withLockTimeout(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
  }

  /** Whole records, at most {@link #MAX_RECORDS}; a partial or damaged one refuses them all. */
  static List<KvpRecord> read(InputStream in) throws IOException {
    byte[] bytes = in.readNBytes(MAX_RECORDS * RecordCodec.RECORD_SIZE + 1);
    if (bytes.length > MAX_RECORDS * RecordCodec.RECORD_SIZE) {
      throw new IOException("more than " + MAX_RECORDS + " records");
    }
    if (bytes.length % RecordCodec.RECORD_SIZE != 0) {
      throw new IOException("the input ends inside a record");
    }
    PoolSnapshot snapshot = RecordCodec.decode(bytes);
    if (!snapshot.problems().isEmpty()) {
      throw new IOException("a record is damaged: " + snapshot.problems().get(0));
    }
    return snapshot.records();
  }

  private static String describe(List<KvpRecord> appends, List<KvpRecord> upserts) {
    boolean report = upserts.stream().anyMatch(r -> r.key().equals(REPORT_KEY));
    return appends.size() + " record(s)" + (report ? " and the provisioning report" : "");
  }

  private static String seconds(long nanos) {
    return String.format(java.util.Locale.ROOT, "%.1f s", nanos / 1e9);
  }
}
