package dev.kvprov.otel;

import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolEntry;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.PoolLockTimeoutException;
import dev.kvprov.kvp.PoolVisitor;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.AttributeType;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.logs.data.LogRecordData;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes kvprov records into a pool: each logical record, all its pieces, in one synchronous append
 * (forced to disk too when the pool was built with {@code syncWrites}), within the boot's record
 * budget. Failures go to the {@link FailureReporter}, never to the caller; a pool whose lock stays
 * held elsewhere costs the caller its lock timeout once, then only a brief wait per record until
 * the lock is free again.
 */
final class KvpSink {
  static final String NAME = "KVP";
  static final String REPORT_KEY = "PROVISIONING_REPORT";

  /** The most a single logical record may take: 4 pieces. Longer texts are cut to fit. */
  static final int MAX_VALUE_BYTES = 4 * 1000;

  private static final Duration BRIEF_LOCK_WAIT = Duration.ofMillis(100);
  private static final long DROP_RECORD_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

  private final PoolFile pool;
  private final PoolFile briefPool;
  private final SpanRecords records;
  private final RecordBudget budget;
  private final FailureReporter failures;
  private final Set<String> startsWritten = ConcurrentHashMap.newKeySet();
  private final String droppedRecordId =
      "d" + Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE);
  private final AtomicBoolean contended = new AtomicBoolean();
  private final AtomicLong lastDropRecord = new AtomicLong(System.nanoTime());
  private final AtomicBoolean anyDropRecorded = new AtomicBoolean();

  KvpSink(PoolFile pool, SpanRecords records, int recordBudget, FailureReporter failures) {
    this.pool = pool;
    this.briefPool =
        pool.lockTimeout().compareTo(BRIEF_LOCK_WAIT) > 0
            ? pool.withLockTimeout(BRIEF_LOCK_WAIT)
            : pool;
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
    // Masked field by field before encoding: masking the CSV text afterwards would miss a secret
    // whose quotes were doubled, or one the shortening had cut in two.
    return io(
        () ->
            pool.upsert(
                new KvpRecord(REPORT_KEY, report.redacted(records.redactor()::redact).encode())));
  }

  /** Records the drop counts (if anything was dropped) and forces the pool to disk. */
  boolean flush() {
    boolean ok = budget.droppedTotal() == 0 || writeDropCounts();
    return io(pool::sync) && ok;
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
      encoded = KvpRecordFormat.encode(fitted(record));
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
    return io(() -> (contended.get() ? briefPool : pool).append(encoded))
        ? Outcome.WRITTEN
        : Outcome.FAILED;
  }

  private boolean writeDropCounts() {
    return io(
        () -> {
          for (KvpRecord record :
              KvpRecordFormat.encode(records.dropped(droppedRecordId, budget.droppedSummary()))) {
            pool.upsert(record);
          }
        });
  }

  private interface PoolWork {
    void run() throws IOException;
  }

  /**
   * Runs pool work for the caller without ever failing it: errors are reported once; an interrupted
   * caller (a step cancelled on timeout) still gets its record written, because an interrupt would
   * close the file channel mid-write; a lock held elsewhere switches to brief waits until it is
   * free again.
   */
  private boolean io(PoolWork work) {
    boolean interrupted = Thread.interrupted();
    try {
      work.run();
      contended.set(false);
      return true;
    } catch (PoolLockTimeoutException e) {
      contended.set(true);
      failures.failure(NAME, e);
      return false;
    } catch (IOException | RuntimeException e) {
      failures.failure(NAME, e);
      return false;
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * The record cut to at most {@link #MAX_VALUE_BYTES}: the longest texts (fields and string
   * attributes) are shortened first, each marked with how much was cut. Nothing is exempt, not even
   * errors: a 200 KB stack trace must not fill the pool.
   */
  static KvprovRecord fitted(KvprovRecord record) {
    KvprovRecord current = record;
    for (int round = 0; round < 64; round++) {
      int excess =
          KvpRecordFormat.value(current).getBytes(StandardCharsets.UTF_8).length - MAX_VALUE_BYTES;
      if (excess <= 0) {
        return current;
      }
      KvprovRecord shorter = cutLongestText(current, excess);
      if (shorter == null) {
        return current;
      }
      current = shorter;
    }
    return current;
  }

  private static KvprovRecord cutLongestText(KvprovRecord record, int excess) {
    int longestField = -1;
    int longest = 0;
    for (int i = 0; i < record.fields().size(); i++) {
      int length = record.fields().get(i).text().length();
      if (length > longest) {
        longest = length;
        longestField = i;
      }
    }
    AttributeKey<?> longestAttribute = null;
    for (var entry : record.attributes().asMap().entrySet()) {
      if (entry.getKey().getType() == AttributeType.STRING
          && ((String) entry.getValue()).length() > longest) {
        longest = ((String) entry.getValue()).length();
        longestAttribute = entry.getKey();
      }
    }
    if (longest <= 64) {
      return null;
    }
    if (longestAttribute != null) {
      AttributesBuilder attributes = Attributes.builder();
      AttributeKey<?> cut = longestAttribute;
      record
          .attributes()
          .forEach(
              (key, value) -> {
                if (key.equals(cut)) {
                  attributes.put(AttributeKey.stringKey(key.getKey()), cut((String) value, excess));
                } else {
                  putUnchecked(attributes, key, value);
                }
              });
      return new KvprovRecord(
          record.kind(),
          record.level(),
          record.vmId(),
          record.recordId(),
          record.fields(),
          attributes.build());
    }
    List<KvprovRecord.Field> fields = new ArrayList<>(record.fields());
    KvprovRecord.Field field = fields.get(longestField);
    fields.set(longestField, new KvprovRecord.Field(field.label(), cut(field.text(), excess)));
    return new KvprovRecord(
        record.kind(),
        record.level(),
        record.vmId(),
        record.recordId(),
        fields,
        record.attributes());
  }

  /** {@code text} less at least {@code excess} bytes' worth, ending in a note of what was cut. */
  private static String cut(String text, int excess) {
    int keep = Math.max(32, text.length() - excess - 32);
    if (Character.isLowSurrogate(text.charAt(keep))) {
      keep--;
    }
    return text.substring(0, keep) + "…[" + (text.length() - keep) + " chars cut]";
  }

  @SuppressWarnings("unchecked")
  private static void putUnchecked(AttributesBuilder builder, AttributeKey<?> key, Object value) {
    builder.put((AttributeKey<Object>) key, value);
  }
}
