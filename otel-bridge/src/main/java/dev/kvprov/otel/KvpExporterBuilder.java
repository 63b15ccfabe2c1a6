package dev.kvprov.otel;

import static java.util.Objects.requireNonNull;

import dev.kvprov.kvp.BootClock;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.VmId;
import java.io.PrintStream;

/**
 * Settings for the KVP exporters an application adds to its own {@code SdkTracerProvider} and
 * {@code SdkLoggerProvider}. The exporters built by one builder share one sink: one record budget,
 * one bound on lock waits, one report of each failure.
 *
 * <pre>{@code
 * KvpExporterBuilder kvp = KvpSpanExporter.builder(PoolFile.builder().build()).vmId(VmId.system());
 * KvpSpanExporter spans = kvp.buildSpanExporter();
 * SdkTracerProvider tracing = SdkTracerProvider.builder()
 *     .addSpanProcessor(spans.startProcessor())             // a record when a span starts
 *     .addSpanProcessor(SimpleSpanProcessor.create(spans))  // and when it ends
 *     .build();
 * SdkLoggerProvider logging = SdkLoggerProvider.builder()
 *     .addLogRecordProcessor(SimpleLogRecordProcessor.create(kvp.buildLogRecordExporter()))
 *     .build();
 * }</pre>
 */
public final class KvpExporterBuilder {
  private final PoolFile pool;
  private VmId vmId = new VmId(VmId.UNKNOWN, "not given");
  private BootClock bootClock;
  private int recordBudget = 300;
  private PrintStream stderr = System.err;
  private final Redactor redactor = new Redactor();
  private KvpSink sink;

  KvpExporterBuilder(PoolFile pool) {
    this.pool = requireNonNull(pool, "pool");
  }

  /** The VM id every record carries in its key (default: unknown). */
  public KvpExporterBuilder vmId(VmId vmId) {
    settable();
    this.vmId = requireNonNull(vmId, "vmId");
    return this;
  }

  /**
   * The boot clock, for each record's time since boot (default: none, and records carry wall time
   * only).
   */
  public KvpExporterBuilder bootClock(BootClock bootClock) {
    settable();
    this.bootClock = requireNonNull(bootClock, "bootClock");
    return this;
  }

  /** The most records written per boot, errors aside (default 300; the pool is shared). */
  public KvpExporterBuilder recordBudget(int recordBudget) {
    settable();
    if (recordBudget < 1) {
      throw new IllegalArgumentException("recordBudget must be at least 1");
    }
    this.recordBudget = recordBudget;
    return this;
  }

  /** Where a failing write is reported, once per kind of failure (default: stderr). */
  public KvpExporterBuilder failuresTo(PrintStream stream) {
    settable();
    this.stderr = requireNonNull(stream, "stream");
    return this;
  }

  /** A secret to mask in every record (more: {@link #redactor()}). */
  public KvpExporterBuilder secret(String secret) {
    redactor.register(requireNonNull(secret, "secret"));
    return this;
  }

  /** The masks every record goes through: a secret registered later is masked from then on. */
  public Redactor redactor() {
    return redactor;
  }

  public KvpSpanExporter buildSpanExporter() {
    return new KvpSpanExporter(sink(), true);
  }

  public KvpLogRecordExporter buildLogRecordExporter() {
    return new KvpLogRecordExporter(sink(), true);
  }

  private synchronized KvpSink sink() {
    if (sink == null) {
      sink =
          new KvpSink(
              pool,
              new LockWaits(pool.lockTimeout()),
              new SpanRecords(
                  vmId.value(),
                  redactor,
                  bootClock == null ? null : new BootAnchoredClock(bootClock)),
              recordBudget,
              new FailureReporter(stderr),
              null,
              java.util.Optional.empty());
    }
    return sink;
  }

  private synchronized void settable() {
    if (sink != null) {
      throw new IllegalStateException("the exporters are built: settings no longer change them");
    }
  }
}
