package dev.kvprov.bench;

import dev.kvprov.kvp.BootClock;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.VmId;
import dev.kvprov.otel.KvpTelemetry;
import io.opentelemetry.api.trace.Tracer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What one traced step costs the thread that runs it: a span started and ended, with its two KVP
 * records written synchronously (locks, one append each), or mirrored to stderr, or with no sink
 * (the SDK alone). In throughput mode the same figure reads as spans per second end to end.
 */
@State(Scope.Benchmark)
@BenchmarkMode({Mode.AverageTime, Mode.Throughput})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class TracedStepBenchmark {
  /**
   * {@code kvp}: pool sink (page cache); {@code kvp-fsync}: pool sink with every record forced to
   * disk, on a disk-backed directory ({@code /var/tmp}); {@code stderr}: the mirror only; {@code
   * none}: no sink, the SDK alone.
   */
  @Param({"kvp", "kvp-fsync", "stderr", "none"})
  public String sink;

  private Path dir;
  private KvpTelemetry telemetry;
  private Tracer tracer;
  private PoolFile pool;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    boolean durable = sink.equals("kvp-fsync");
    dir =
        Files.createTempDirectory(
            durable ? Path.of("/var/tmp") : PoolAppendBenchmark.benchDirectory(), "kvp-bench-otel");
    pool = PoolFile.builder().directory(dir).syncWrites(durable).build();
    // The mirror writes to a stream that discards: the cost measured is formatting and locking,
    // not the terminal.
    PrintStream discard = new PrintStream(OutputStream.nullOutputStream(), false);
    KvpTelemetry.Builder builder =
        KvpTelemetry.builder()
            .serviceName("bench")
            .vmId(VmId.system())
            .bootClock(BootClock.system())
            .environment(Map.of())
            .stderr(discard)
            .recordBudget(Integer.MAX_VALUE);
    switch (sink) {
      case "kvp", "kvp-fsync" -> builder.kvp(pool).noStderrMirror();
      case "stderr" -> builder.stderrLevel(dev.kvprov.otel.KvprovRecord.Level.INFO);
      default -> builder.noStderrMirror();
    }
    telemetry = builder.build();
    tracer = telemetry.tracer();
  }

  @Setup(Level.Iteration)
  public void empty() throws IOException {
    if (Files.exists(pool.path())) {
      try (FileChannel channel = FileChannel.open(pool.path(), StandardOpenOption.WRITE)) {
        channel.truncate(0);
      }
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    telemetry.close();
    Files.deleteIfExists(pool.path());
    Files.deleteIfExists(dir);
  }

  @Benchmark
  public void tracedStep() {
    tracer.spanBuilder("imds.fetch").setAttribute("attempt", 1L).startSpan().end();
  }
}
