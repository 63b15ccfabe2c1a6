package dev.kvprov.otel;

import static java.util.Objects.requireNonNull;

import dev.kvprov.kvp.BootClock;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.StaleClearResult;
import dev.kvprov.kvp.VmId;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.logs.Logger;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.exporter.otlp.http.logs.OtlpHttpLogRecordExporter;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.logs.SdkLoggerProvider;
import io.opentelemetry.sdk.logs.SdkLoggerProviderBuilder;
import io.opentelemetry.sdk.logs.export.BatchLogRecordProcessor;
import io.opentelemetry.sdk.logs.export.SimpleLogRecordProcessor;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SdkTracerProviderBuilder;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;

/**
 * OpenTelemetry for one program, with up to three sinks: the KVP pool (start and end of every span,
 * events and logs, each on file as it happens), a readable mirror on stderr, and OTLP to a
 * collector. {@link #close()} writes everything to KVP before it returns and gives OTLP a bounded
 * time. A failing sink is reported once on stderr and never throws into the caller.
 *
 * <p>Building one changes nothing outside it: it reads the pool (to count this boot's records
 * against the budget), but writes no file and sets nothing JVM-wide. What a program that owns its
 * VM's pool and its JVM wants besides is three explicit steps: {@link #clearStalePool} (file I/O:
 * empties and archives an earlier boot's records), {@link #reportSdkLogging} (the SDK's own logger,
 * JVM-wide) and {@link #closeOnShutdown} (a JVM shutdown hook, so SIGTERM still flushes). For an
 * application that has its own {@code SdkTracerProvider}, {@link KvpSpanExporter} and {@link
 * KvpLogRecordExporter} are the sinks alone.
 *
 * <pre>{@code
 * try (KvpTelemetry telemetry = KvpTelemetry.builder()
 *     .serviceName("kvprov").serviceVersion("0.1.0")
 *     .vmId(VmId.system()).bootClock(BootClock.system())
 *     .kvp(PoolFile.builder().build())
 *     .build()
 *     .clearStalePool().reportSdkLogging().closeOnShutdown()) {
 *   Span span = telemetry.tracer().spanBuilder("provision").startSpan();
 *   ...
 * }
 * }</pre>
 */
public final class KvpTelemetry implements AutoCloseable {
  /** Where OTLP failures are reported from. */
  static final String OTLP = "OTLP";

  private static final java.util.logging.Logger SDK_LOGGER =
      java.util.logging.Logger.getLogger("io.opentelemetry");

  private final OpenTelemetrySdk sdk;
  private final Tracer tracer;
  private final Logger logger;
  private final Redactor redactor;
  private final KvpSink kvp;
  private final StderrMirror mirror;
  private final FailureReporter failures;
  private final Duration closeTimeout;
  private final BootClock bootClock;
  private final PoolFile pool;
  private final LockWaits waits;
  private Thread shutdownHook;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final CountDownLatch closedLatch = new CountDownLatch(1);
  private final Set<CompletableResultCode> otlpPending = ConcurrentHashMap.newKeySet();
  private final String otlpTarget;

  private KvpTelemetry(Builder b) {
    this.failures = new FailureReporter(b.stderr);
    this.closeTimeout = b.otlpTimeout;
    this.bootClock = b.bootClock;
    this.pool = b.pool;
    BootAnchoredClock clock = new BootAnchoredClock(b.bootClock);
    this.redactor = new Redactor();
    b.secrets.forEach(redactor::register);
    SpanRecords records = new SpanRecords(b.vmId.value(), redactor, clock);
    Resource resource =
        Resource.getDefault()
            .merge(
                Resource.create(
                    Attributes.builder()
                        .put(AttributeKey.stringKey("service.name"), b.serviceName)
                        .put(AttributeKey.stringKey("service.version"), b.serviceVersion)
                        .put(AttributeKey.stringKey("host.id"), b.vmId.value())
                        .put(
                            AttributeKey.stringKey("linux.boot.id"),
                            b.bootClock == null ? "unknown" : b.bootClock.bootId())
                        .build()));

    SdkTracerProviderBuilder traces =
        SdkTracerProvider.builder().setClock(clock).setResource(resource);
    SdkLoggerProviderBuilder logs =
        SdkLoggerProvider.builder().setClock(clock).setResource(resource);
    if (b.pool != null) {
      waits = new LockWaits(b.pool.lockTimeout());
      kvp =
          new KvpSink(
              b.pool,
              waits,
              records,
              b.recordBudget,
              failures,
              b.lateRecordWriter,
              b.diagRecords
                  ? Optional.of(new DiagRecordFormat(b.serviceName + "/" + b.serviceVersion))
                  : Optional.empty());
      if (b.kvpDiagnostics) {
        traces.addSpanProcessor(new KvpSpanStartProcessor(kvp));
        traces.addSpanProcessor(SimpleSpanProcessor.create(new KvpSpanExporter(kvp, false)));
        logs.addLogRecordProcessor(
            SimpleLogRecordProcessor.create(new KvpLogRecordExporter(kvp, false)));
      }
    } else {
      waits = null;
      kvp = null;
    }
    if (b.mirrorLevel != null) {
      mirror =
          new StderrMirror(
              b.stderrLines != null
                  ? b.stderrLines
                  : StderrMirror.printing(b.stderr, StderrLine.stderrIsJournal(b.environment)),
              b.mirrorLevel,
              redactor,
              clock,
              failures);
      traces.addSpanProcessor(mirror);
      logs.addLogRecordProcessor(mirror);
    } else {
      mirror = null;
    }
    Optional<String> tracesEndpoint = b.otlpEndpoint("TRACES", "/v1/traces");
    Optional<String> logsEndpoint = b.otlpEndpoint("LOGS", "/v1/logs");
    this.otlpTarget = tracesEndpoint.or(() -> logsEndpoint).orElse("");
    try {
      tracesEndpoint.ifPresent(
          url ->
              traces.addSpanProcessor(
                  BatchSpanProcessor.builder(
                          RedactingExporters.spans(
                              OtlpHttpSpanExporter.builder()
                                  .setEndpoint(url)
                                  .setTimeout(b.otlpTimeout)
                                  .build(),
                              redactor,
                              failures,
                              OTLP,
                              otlpPending))
                      .setScheduleDelay(Duration.ofMillis(500))
                      .setExporterTimeout(b.otlpTimeout)
                      .build()));
      logsEndpoint.ifPresent(
          url ->
              logs.addLogRecordProcessor(
                  BatchLogRecordProcessor.builder(
                          RedactingExporters.logs(
                              OtlpHttpLogRecordExporter.builder()
                                  .setEndpoint(url)
                                  .setTimeout(b.otlpTimeout)
                                  .build(),
                              redactor,
                              failures,
                              OTLP,
                              otlpPending))
                      .setScheduleDelay(Duration.ofMillis(500))
                      .setExporterTimeout(b.otlpTimeout)
                      .build()));
    } catch (IllegalArgumentException e) {
      // A malformed OTEL_EXPORTER_OTLP_* value must not stop the program: go on without OTLP.
      failures.failure(OTLP, "not sending: " + e.getMessage());
    }
    this.sdk =
        OpenTelemetrySdk.builder()
            .setTracerProvider(traces.build())
            .setLoggerProvider(logs.build())
            .build();
    this.tracer = sdk.getTracer(b.serviceName, b.serviceVersion);
    this.logger = sdk.getLogsBridge().loggerBuilder(b.serviceName).build();
  }

  /**
   * Empties the pool if an earlier boot wrote it, as every KVP writer does once per boot, so that
   * readers do not take the last boot's records for this one's; they are archived first when the
   * {@link PoolFile} was built with an archive. File I/O under the pool's lock (its wait counts
   * against the run's lock budget): call it once, before the first span. Does nothing without a
   * pool or a boot clock; a failure is reported like any sink failure.
   *
   * @return this
   */
  public KvpTelemetry clearStalePool() {
    if (pool == null || bootClock == null) {
      return this;
    }
    try {
      StaleClearResult result = waits.run(pool, p -> p.clearIfStale(bootClock.bootTime()));
      if (result.outcome() == StaleClearResult.Outcome.CLEARED && kvp != null) {
        kvp.poolCleared(); // what the sink counted at its start was the earlier boot's
      }
      result
          .notArchived()
          .ifPresent(
              why ->
                  failures.failure(
                      KvpSink.NAME,
                      "the previous boot's records were cleared without their archive copy: "
                          + why));
    } catch (IOException | RuntimeException e) {
      failures.failure(KvpSink.NAME, e);
    }
    return this;
  }

  /**
   * Reports the OpenTelemetry SDK's own trouble (an unreachable collector, a dropped batch) once,
   * like any failing sink, instead of the multi-line java.util.logging records it would print on
   * stderr. A change to the JVM's {@code io.opentelemetry} logger: for a program that owns its
   * stderr (a console, the journal). The last telemetry to call it reports for the JVM.
   *
   * @return this
   */
  public KvpTelemetry reportSdkLogging() {
    synchronized (SDK_LOGGER) {
      for (Handler handler : SDK_LOGGER.getHandlers()) {
        if (handler instanceof SdkLogHandler) {
          SDK_LOGGER.removeHandler(handler);
        }
      }
      SDK_LOGGER.setUseParentHandlers(false);
      SDK_LOGGER.setLevel(Level.WARNING);
      SDK_LOGGER.addHandler(new SdkLogHandler(failures));
    }
    return this;
  }

  /**
   * Closes this telemetry when the JVM shuts down (SIGTERM, the end of {@code main}), so that what
   * is queued reaches the pool: a JVM-wide hook, for a program that owns its JVM. {@link #close}
   * removes it.
   *
   * @return this
   */
  public synchronized KvpTelemetry closeOnShutdown() {
    if (shutdownHook == null && !closed.get()) {
      shutdownHook = new Thread(this::close, "kvprov-telemetry-shutdown");
      Runtime.getRuntime().addShutdownHook(shutdownHook);
    }
    return this;
  }

  private static final class SdkLogHandler extends Handler {
    private final FailureReporter failures;

    SdkLogHandler(FailureReporter failures) {
      this.failures = failures;
    }

    @Override
    public void publish(LogRecord record) {
      if (record.getLevel().intValue() < Level.WARNING.intValue()) {
        return;
      }
      String sink =
          record.getLoggerName() != null
                  && record.getLoggerName().startsWith("io.opentelemetry.exporter")
              ? OTLP
              : "OpenTelemetry SDK";
      String message = record.getMessage();
      if (record.getThrown() != null) {
        // the cause in words (connection refused, TLS handshake failed), not the JDK's chain
        message += " (" + NetworkErrors.describe(record.getThrown()) + ")";
      }
      failures.failure(sink, message);
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The OpenTelemetry API backed by these sinks (not registered as the global instance). */
  public OpenTelemetry openTelemetry() {
    return sdk;
  }

  /** A tracer named after the service. */
  public Tracer tracer() {
    return tracer;
  }

  /** A logger named after the service; its records land in the sinks tied to the current span. */
  public Logger logger() {
    return logger;
  }

  /** Masks registered secrets and drops secret-looking attributes before any sink sees them. */
  public Redactor redactor() {
    return redactor;
  }

  /**
   * Writes the platform's {@code PROVISIONING_REPORT} (replacing any earlier one, so the pool never
   * holds two) and mirrors it on stderr. Never dropped by the record budget.
   *
   * @return whether it was written to KVP
   */
  public boolean report(ProvisioningReport report) {
    requireNonNull(report, "report");
    boolean written = kvp != null && kvp.report(report);
    if (mirror != null) {
      mirror.report(report); // a failing sink is reported by the mirror
    }
    return written;
  }

  /** How many records the KVP budget has dropped so far. */
  public long droppedRecords() {
    return kvp == null ? 0 : kvp.budget().droppedTotal();
  }

  /**
   * Ends telemetry: everything is written to KVP (and forced to disk) before this returns; OTLP
   * gets at most the configured timeout. Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      // Another close (the shutdown hook, say) is running: wait for it, within the same bound,
      // so that the JVM does not halt mid-flush behind our back.
      try {
        closedLatch.await(closeTimeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return;
    }
    try {
      shutDown();
    } finally {
      closedLatch.countDown();
    }
  }

  private void shutDown() {
    Thread shutdownHook;
    synchronized (this) {
      shutdownHook = this.shutdownHook;
    }
    if (shutdownHook != null && Thread.currentThread() != shutdownHook) {
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException e) {
        // the JVM is already shutting down; the hook is running or ran
      }
    }
    List<CompletableResultCode> results = new ArrayList<>();
    results.add(sdk.getSdkTracerProvider().shutdown());
    results.add(sdk.getSdkLoggerProvider().shutdown());
    CompletableResultCode.ofAll(results).join(closeTimeout.toMillis() + 500, TimeUnit.MILLISECONDS);
    if (kvp != null) {
      // After the exporters' own flushes: the report is written even with diagnostics off, and
      // what the pool's lock still keeps out is handed over or reported lost.
      kvp.close();
    }
    if (!otlpPending.isEmpty()) {
      failures.failure(
          OTLP,
          "the collector at "
              + otlpTarget
              + " did not answer within "
              + closeTimeout.toMillis()
              + " ms; "
              + otlpPending.size()
              + " export(s) abandoned");
    }
  }

  /** Settings for {@link KvpTelemetry}. Only the sinks that are set up are used. */
  public static final class Builder {
    private String serviceName = "kvprov";
    private String serviceVersion = "unknown";
    private VmId vmId = new VmId(VmId.UNKNOWN, "not given");
    private BootClock bootClock;
    private boolean kvpDiagnostics = true;
    private boolean diagRecords;
    private PoolFile pool;
    private int recordBudget = 300;
    private PrintStream stderr = System.err;
    private KvprovRecord.Level mirrorLevel = KvprovRecord.Level.INFO;
    private Consumer<StderrLine> stderrLines;
    private Map<String, String> environment = System.getenv();
    private String otlpEndpoint;
    private Duration otlpTimeout = Duration.ofSeconds(2);
    private LateRecordWriter lateRecordWriter;
    private final List<String> secrets = new ArrayList<>();

    private Builder() {}

    public Builder serviceName(String serviceName) {
      this.serviceName = requireNonNull(serviceName, "serviceName");
      return this;
    }

    public Builder serviceVersion(String serviceVersion) {
      this.serviceVersion = requireNonNull(serviceVersion, "serviceVersion");
      return this;
    }

    /** The VM id written into every KVP key and the resource ({@code host.id}). */
    public Builder vmId(VmId vmId) {
      this.vmId = requireNonNull(vmId, "vmId");
      return this;
    }

    /** Gives records their seconds since boot, and the resource its boot id. */
    public Builder bootClock(BootClock bootClock) {
      this.bootClock = requireNonNull(bootClock, "bootClock");
      return this;
    }

    /** Write to this KVP pool. Without it, no KVP records are written. */
    public Builder kvp(PoolFile pool) {
      this.pool = requireNonNull(pool, "pool");
      return this;
    }

    /**
     * Whether spans, events and logs go to the KVP pool (default true). Off, the pool gets only the
     * {@link #report PROVISIONING_REPORT}, which the platform reads.
     */
    public Builder kvpDiagnostics(boolean kvpDiagnostics) {
      this.kvpDiagnostics = kvpDiagnostics;
      return this;
    }

    /**
     * Whether each record also goes to the pool in azure-init's diagnostic grammar ({@code DIAG},
     * default false), for host-side tools that read only that. Both forms of a record are written
     * in one append and share the {@link #recordBudget}: a step is in both or in neither.
     */
    public Builder diagRecords(boolean diagRecords) {
      this.diagRecords = diagRecords;
      return this;
    }

    /**
     * How many KVP records this boot may use (default 300, leaving room for cloud-init's records in
     * the same pool); counted from the kvprov records already in the pool.
     */
    public Builder recordBudget(int recordBudget) {
      if (recordBudget < 10) {
        throw new IllegalArgumentException("recordBudget is " + recordBudget + "; at least 10");
      }
      this.recordBudget = recordBudget;
      return this;
    }

    /** Where the mirror and failure reports go (default {@code System.err}). */
    public Builder stderr(PrintStream stderr) {
      this.stderr = requireNonNull(stderr, "stderr");
      return this;
    }

    /** The least severe level mirrored to stderr (default INFO). */
    public Builder stderrLevel(KvprovRecord.Level level) {
      this.mirrorLevel = requireNonNull(level, "level");
      return this;
    }

    /**
     * Hands the mirror's lines to {@code sink} instead of printing them on {@link #stderr}: to a
     * program's logging backend, say, which then decides their form and where they go (the journal
     * priorities too). Only lines at or above {@link #stderrLevel} reach it, secrets already
     * masked; one that throws is reported once and the program goes on.
     */
    public Builder stderrLines(Consumer<StderrLine> sink) {
      this.stderrLines = requireNonNull(sink, "sink");
      return this;
    }

    /** No stderr mirror (failures are still reported there). */
    public Builder noStderrMirror() {
      this.mirrorLevel = null;
      return this;
    }

    /**
     * Send to this OTLP/HTTP base URL ({@code …/v1/traces}, {@code …/v1/logs} are added). Without
     * it, the standard {@code OTEL_EXPORTER_OTLP_ENDPOINT}, {@code
     * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT} and {@code OTEL_EXPORTER_OTLP_LOGS_ENDPOINT} variables
     * decide; with none of them, nothing is sent.
     */
    public Builder otlpEndpoint(String baseUrl) {
      this.otlpEndpoint = requireNonNull(baseUrl, "baseUrl");
      return this;
    }

    /** The environment the OTLP variables and {@code JOURNAL_STREAM} are read from. */
    public Builder environment(Map<String, String> environment) {
      this.environment = Map.copyOf(environment);
      return this;
    }

    /** The longest OTLP may hold up an export or {@link #close()} (default 2 s). */
    public Builder otlpTimeout(Duration timeout) {
      requireNonNull(timeout, "timeout");
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("otlpTimeout must be positive: " + timeout);
      }
      this.otlpTimeout = timeout;
      return this;
    }

    /**
     * Who takes over the records, and the report, that a pool lock held elsewhere keeps out of the
     * pool until the end of the run (default: nobody; they are reported lost on stderr).
     */
    public Builder lateRecordWriter(LateRecordWriter writer) {
      this.lateRecordWriter = requireNonNull(writer, "writer");
      return this;
    }

    /**
     * A secret to mask in every sink from the start (more can be added via {@link #redactor()}).
     */
    public Builder secret(String secret) {
      secrets.add(requireNonNull(secret, "secret"));
      return this;
    }

    private Optional<String> otlpEndpoint(String signal, String path) {
      String specific = environment.get("OTEL_EXPORTER_OTLP_" + signal + "_ENDPOINT");
      if (otlpEndpoint == null && specific != null && !specific.isBlank()) {
        return Optional.of(specific.trim());
      }
      String base =
          otlpEndpoint != null ? otlpEndpoint : environment.get("OTEL_EXPORTER_OTLP_ENDPOINT");
      if (base == null || base.isBlank()) {
        return Optional.empty();
      }
      base = base.trim();
      return Optional.of((base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + path);
    }

    public KvpTelemetry build() {
      return new KvpTelemetry(this);
    }
  }
}
