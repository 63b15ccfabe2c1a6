package dev.kvprov.otel;

import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolEntry;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.PoolLockTimeoutException;
import dev.kvprov.kvp.PoolVisitor;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.logs.data.LogRecordData;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes kvprov records into a pool: each logical record, all its pieces, in one synchronous append
 * (forced to disk too when the pool was built with {@code syncWrites}), within the boot's record
 * budget. Failures go to the {@link FailureReporter}, never to the caller.
 *
 * <p>A pool whose lock stays held elsewhere costs the whole boot the pool's lock timeout once
 * ({@link LockWaits}), not a wait per record: records that find it locked wait in memory (within
 * the record budget) and go in, in order, with the next write that gets the lock; at the flush that
 * ends a run, they and the provisioning report get one more lock timeout. Nothing is lost unless
 * the lock is held past all of that, and then not if a {@link LateRecordWriter} takes them over.
 */
final class KvpSink {
  static final String NAME = "KVP";
  static final String REPORT_KEY = "PROVISIONING_REPORT";

  private static final long DROP_RECORD_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

  private final PoolFile pool;
  private final LockWaits waits;
  private final SpanRecords records;
  private final RecordBudget budget;
  private final FailureReporter failures;
  private final Set<String> startsWritten = ConcurrentHashMap.newKeySet();
  private final String droppedRecordId =
      "d" + Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE);
  private final AtomicLong lastDropRecord = new AtomicLong(System.nanoTime());
  private final AtomicBoolean anyDropRecorded = new AtomicBoolean();

  /** Records that found the pool locked, in order: the next write takes them along. */
  private final List<KvpRecord> waiting = new ArrayList<>();

  /** The report, when it found the pool locked: the flush writes it. */
  private KvpRecord waitingReport;

  /** The drop counts, when their last write found the pool locked. */
  private boolean dropCountsWaiting;

  private final LateRecordWriter lateWriter;

  /** azure-init's grammar, when each record is written in it too (in the same append). */
  private final Optional<DiagRecordFormat> diag;

  KvpSink(
      PoolFile pool,
      LockWaits waits,
      SpanRecords records,
      int recordBudget,
      FailureReporter failures,
      LateRecordWriter lateWriter,
      Optional<DiagRecordFormat> diag) {
    this.pool = pool;
    this.diag = diag;
    this.lateWriter = lateWriter;
    this.waits = waits;
    this.records = records;
    this.failures = failures;
    this.foundAtStart = countOwnRecords(pool, waits, failures);
    this.budget = new RecordBudget(recordBudget, foundAtStart);
  }

  /** kvprov records the pool held when the sink began, counted against this boot's budget. */
  private int foundAtStart;

  /**
   * The pool was emptied of an earlier boot's records: those found at the start are no longer this
   * boot's, and give their share of the budget back.
   */
  synchronized void poolCleared() {
    budget.forget(foundAtStart);
    foundAtStart = 0;
  }

  /**
   * kvprov records already in the pool, in either form: an earlier run this boot spent part of the
   * budget.
   */
  private static int countOwnRecords(PoolFile pool, LockWaits waits, FailureReporter failures) {
    int[] count = new int[1];
    try {
      waits.run(
          pool,
          p -> {
            p.scan(
                new PoolVisitor() {
                  @Override
                  public void entry(PoolEntry entry) {
                    // its DIAG records too, written this boot with that setting or not
                    if (KvpRecordFormat.isKvprovKey(entry.key())
                        || DiagRecordFormat.isKvprovKey(entry.key())) {
                      count[0]++;
                    }
                  }
                });
            return null;
          });
    } catch (NoSuchFileException e) {
      return 0;
    } catch (IOException | RuntimeException e) {
      failures.failure(NAME, e);
    }
    return count[0];
  }

  /** A failure outside the sink's own writes (reading a span, say): reported like the rest. */
  void failed(RuntimeException e) {
    failures.failure(NAME, e);
  }

  RecordBudget budget() {
    return budget;
  }

  /**
   * What became of a record. Only a failure fails an export: dropping is the budget's policy, and a
   * record waiting for the lock is written later.
   */
  enum Outcome {
    WRITTEN,
    DROPPED,
    WAITING,
    FAILED
  }

  void spanStarted(SpanData span) {
    Outcome outcome = write(records.start(span), RecordBudget.Priority.SPAN);
    if (outcome == Outcome.WRITTEN || outcome == Outcome.WAITING) {
      startsWritten.add(span.getSpanId());
    }
  }

  /** Writes the span's events, then its end; false if a write failed. */
  boolean spanEnded(SpanData span) {
    boolean ok = true;
    for (KvprovRecord event : records.events(span)) {
      ok &= write(event, priority(event.level())) != Outcome.FAILED;
    }
    boolean pairsAStart = startsWritten.remove(span.getSpanId());
    boolean failed = span.getStatus().getStatusCode() == StatusCode.ERROR;
    RecordBudget.Priority priority =
        failed || pairsAStart ? RecordBudget.Priority.ALWAYS : RecordBudget.Priority.SPAN;
    return write(records.end(span), priority) != Outcome.FAILED && ok;
  }

  /** Writes a log record; false if the write failed. */
  boolean log(LogRecordData log) {
    KvprovRecord record = records.log(log);
    return write(record, priority(record.level())) != Outcome.FAILED;
  }

  /**
   * Writes (replaces) the one provisioning report of this pool; false if it could not be written
   * now (a pool still locked: the flush tries again).
   */
  synchronized boolean report(ProvisioningReport report) {
    // Masked field by field before encoding: masking the CSV text afterwards would miss a secret
    // whose quotes were doubled, or one the shortening had cut in two.
    KvpRecord record =
        new KvpRecord(REPORT_KEY, report.redacted(records.redactor()::redact).encode());
    waitingReport = null;
    Outcome outcome = io(p -> writeReport(p, record));
    if (outcome == Outcome.WAITING) {
      waitingReport = record;
    }
    return outcome == Outcome.WRITTEN;
  }

  /**
   * The report in its own record; on a disk with no room left for it, over one of this run's own
   * records in place (needing no new space): the report is the one record the platform reads.
   */
  private static void writeReport(PoolFile pool, KvpRecord report) throws IOException {
    try {
      pool.upsert(report);
    } catch (PoolLockTimeoutException e) {
      throw e;
    } catch (IOException noRoom) {
      Optional<String> spare = spareRecord(pool);
      if (spare.isEmpty() || !pool.replace(spare.get(), report)) {
        throw noRoom;
      }
    }
  }

  /**
   * The key of a record of ours whose loss costs nothing: the start of a span that has ended (its
   * end record says when it started too).
   */
  private static Optional<String> spareRecord(PoolFile pool) throws IOException {
    List<KvpRecord> all = pool.read().records();
    List<KvpRecordFormat.DecodedRecord> ours = KvpRecordFormat.decode(all).records();
    Set<String> ended = new java.util.HashSet<>();
    for (KvpRecordFormat.DecodedRecord r : ours) {
      if (r.record().kind() == KvprovRecord.Kind.END) {
        r.record().spanId().ifPresent(ended::add);
      }
    }
    for (KvpRecordFormat.DecodedRecord r : ours) {
      if (r.record().kind() == KvprovRecord.Kind.START
          && r.recordIndexes().size() == 1
          && r.record().spanId().filter(ended::contains).isPresent()) {
        return Optional.of(all.get(r.recordIndexes().get(0)).key());
      }
    }
    return Optional.empty();
  }

  /**
   * Writes what waited for the lock (with one more lock timeout, the first time), the drop counts
   * (if anything was dropped), and forces the pool to disk; false if something still waits.
   */
  synchronized boolean flush() {
    if (!waiting.isEmpty() || waitingReport != null) {
      waits.grantOnce();
    }
    boolean ok = writeWaiting();
    if (waitingReport != null) {
      KvpRecord report = waitingReport;
      if (io(p -> writeReport(p, report)) == Outcome.WRITTEN) {
        waitingReport = null;
      } else {
        ok = false;
      }
    }
    dropCountsWaiting = budget.droppedTotal() > 0 && !writeDropCounts();
    ok &= !dropCountsWaiting;
    if (!waiting.isEmpty() || waitingReport != null) {
      return false;
    }
    return io(PoolFile::sync) == Outcome.WRITTEN && ok;
  }

  /**
   * Ends the sink: a last {@link #flush}, then what still waits for the lock goes to the {@link
   * LateRecordWriter}, or is reported lost. Either way, stderr says so in one line.
   */
  synchronized void close() {
    if (flush() || (waiting.isEmpty() && waitingReport == null)) {
      return;
    }
    List<KvpRecord> appends = List.copyOf(waiting);
    List<KvpRecord> upserts = new ArrayList<>();
    if (waitingReport != null) {
      upserts.add(waitingReport);
    }
    if (dropCountsWaiting) {
      upserts.addAll(
          KvpRecordFormat.encode(records.dropped(droppedRecordId, budget.droppedSummary())));
    }
    String what =
        appends.size()
            + " record(s)"
            + (waitingReport != null ? " and the provisioning report" : "");
    waiting.clear();
    waitingReport = null;
    String locked = "the pool " + pool.path() + " stayed locked by another writer";
    if (lateWriter != null) {
      try {
        String who = lateWriter.takeOver(pool, appends, upserts);
        failures.handedOver(NAME, locked + ": " + what + " go to " + who);
        return;
      } catch (IOException | RuntimeException e) {
        failures.lost(
            NAME, what + ": " + locked + ", and no late writer started (" + e.getMessage() + ")");
        return;
      }
    }
    failures.lost(NAME, what + ": they could not be written, " + locked);
  }

  /** The records that waited for the lock, if any; false if they still wait. */
  private boolean writeWaiting() {
    if (waiting.isEmpty()) {
      return true;
    }
    List<KvpRecord> batch = List.copyOf(waiting);
    Outcome outcome = io(p -> p.append(batch));
    if (outcome != Outcome.WAITING) {
      waiting.clear(); // written, or failed for good (reported)
    }
    return outcome == Outcome.WRITTEN;
  }

  private static RecordBudget.Priority priority(KvprovRecord.Level level) {
    return switch (level) {
      case DEBUG -> RecordBudget.Priority.DEBUG;
      case INFO, WARN -> RecordBudget.Priority.INFO;
      case ERROR -> RecordBudget.Priority.ALWAYS;
    };
  }

  private Outcome write(KvprovRecord record, RecordBudget.Priority priority) {
    List<KvpRecord> encoded;
    try {
      KvprovRecord fitted = KvpRecordFormat.fitted(record);
      encoded = KvpRecordFormat.encode(fitted);
      if (diag.isPresent()) {
        // One budget decision for both forms, so that a step is in both or in neither.
        encoded = new ArrayList<>(encoded);
        encoded.addAll(diag.get().encode(fitted));
      }
    } catch (RuntimeException e) {
      failures.failure(NAME, e);
      return Outcome.FAILED;
    }
    if (!budget.take(priority, encoded.size())) {
      long now = System.nanoTime();
      long last = lastDropRecord.get();
      // Kept current as drops happen (at most twice a second), so a killed process still
      // shows how much it dropped.
      if (anyDropRecorded.compareAndSet(false, true)
          || (now - last >= DROP_RECORD_INTERVAL_NANOS
              && lastDropRecord.compareAndSet(last, now))) {
        writeDropCounts();
      }
      return Outcome.DROPPED;
    }
    return append(encoded);
  }

  /** Appends {@code encoded} after whatever waited for the lock, in one write. */
  private synchronized Outcome append(List<KvpRecord> encoded) {
    List<KvpRecord> batch = new ArrayList<>(waiting);
    batch.addAll(encoded);
    Outcome outcome = io(p -> p.append(batch));
    waiting.clear();
    if (outcome == Outcome.WAITING) {
      waiting.addAll(batch);
    }
    return outcome;
  }

  private boolean writeDropCounts() {
    return io(
            p -> {
              for (KvpRecord record :
                  KvpRecordFormat.encode(
                      records.dropped(droppedRecordId, budget.droppedSummary()))) {
                p.upsert(record);
              }
            })
        == Outcome.WRITTEN;
  }

  private interface PoolWork {
    void run(PoolFile pool) throws IOException;
  }

  /**
   * Runs pool work for the caller without ever failing it: errors are reported once; an interrupted
   * caller (a step cancelled on timeout) still gets its record written, because an interrupt would
   * close the file channel mid-write; a lock held elsewhere waits only what is left of the boot's
   * lock wait ({@link LockWaits}), and says {@link Outcome#WAITING}.
   */
  private Outcome io(PoolWork work) {
    boolean interrupted = Thread.interrupted();
    try {
      waits.run(
          pool,
          p -> {
            work.run(p);
            return null;
          });
      return Outcome.WRITTEN;
    } catch (PoolLockTimeoutException e) {
      failures.failure(NAME, e);
      return Outcome.WAITING;
    } catch (IOException | RuntimeException e) {
      failures.failure(NAME, e);
      return Outcome.FAILED;
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
