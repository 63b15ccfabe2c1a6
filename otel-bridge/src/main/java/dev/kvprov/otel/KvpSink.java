package dev.kvprov.otel;

import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolEntry;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.PoolVisitor;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.logs.data.LogRecordData;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Writes kvprov records into a pool: each logical record, all its pieces, in one synchronous append
 * (forced to disk too when the pool was built with {@code syncWrites}), within the boot's record
 * budget. Failures go to the {@link FailureReporter}, never to the caller.
 */
final class KvpSink {
  static final String NAME = "KVP";
  static final String REPORT_KEY = "PROVISIONING_REPORT";

  private final PoolFile pool;
  private final SpanRecords records;
  private final RecordBudget budget;
  private final FailureReporter failures;
  private final Set<String> startsWritten = ConcurrentHashMap.newKeySet();
  private final String droppedRecordId =
      "d" + Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE);
  private final AtomicBoolean dropsRecorded = new AtomicBoolean();

  KvpSink(PoolFile pool, SpanRecords records, int recordBudget, FailureReporter failures) {
    this.pool = pool;
    this.records = records;
    this.failures = failures;
    this.budget = new RecordBudget(recordBudget, countOwnRecords(pool, failures));
  }

  /** kvprov records already in the pool: an earlier run this boot spent part of the budget. */
  private static int countOwnRecords(PoolFile pool, FailureReporter failures) {
    int[] count = new int[1];
    try {
      pool.scan(
          new PoolVisitor() {
            @Override
            public void entry(PoolEntry entry) {
              if (KvpRecordFormat.isKvprovKey(entry.key())) {
                count[0]++;
              }
            }
          });
    } catch (NoSuchFileException e) {
      return 0;
    } catch (IOException | RuntimeException e) {
      failures.failure(NAME, e);
    }
    return count[0];
  }

  RecordBudget budget() {
    return budget;
  }

  /** What became of a record. Only a failure fails an export: dropping is the budget's policy. */
  enum Outcome {
    WRITTEN,
    DROPPED,
    FAILED
  }

  void spanStarted(SpanData span) {
    if (write(records.start(span), RecordBudget.Priority.SPAN) == Outcome.WRITTEN) {
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

  /** Writes (replaces) the one provisioning report of this pool. */
  boolean report(ProvisioningReport report) {
    try {
      pool.upsert(new KvpRecord(REPORT_KEY, records.redactor().redact(report.encode())));
      return true;
    } catch (IOException | RuntimeException e) {
      failures.failure(NAME, e);
      return false;
    }
  }

  /** Records the drop counts (if anything was dropped) and forces the pool to disk. */
  boolean flush() {
    boolean ok = budget.droppedTotal() == 0 || writeDropCounts();
    try {
      pool.sync();
      return ok;
    } catch (IOException | RuntimeException e) {
      failures.failure(NAME, e);
      return false;
    }
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
      encoded = KvpRecordFormat.encode(record);
    } catch (RuntimeException e) {
      failures.failure(NAME, e);
      return Outcome.FAILED;
    }
    if (!budget.take(priority, encoded.size())) {
      // The first drop is recorded at once, so a process killed later still shows it.
      if (dropsRecorded.compareAndSet(false, true)) {
        writeDropCounts();
      }
      return Outcome.DROPPED;
    }
    try {
      pool.append(encoded);
      return Outcome.WRITTEN;
    } catch (IOException | RuntimeException e) {
      failures.failure(NAME, e);
      return Outcome.FAILED;
    }
  }

  private boolean writeDropCounts() {
    try {
      for (KvpRecord record :
          KvpRecordFormat.encode(records.dropped(droppedRecordId, budget.droppedSummary()))) {
        pool.upsert(record);
      }
      return true;
    } catch (IOException | RuntimeException e) {
      failures.failure(NAME, e);
      return false;
    }
  }
}
