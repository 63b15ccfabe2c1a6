package dev.kvprov.bench;

import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Records per second appended to a pool file in the page cache, each batch a full locked append
 * (open, flock, fcntl lock, one write, release). The file is emptied before every iteration so it
 * stays within a few hundred megabytes. Pass {@code -jvmArgsAppend -Dkvp.bench.dir=/var/tmp} to
 * measure on a disk-backed file system instead.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class PoolAppendBenchmark {
  private Path dir;
  private PoolFile pool;
  private List<KvpRecord> one;
  private List<KvpRecord> ten;
  private List<KvpRecord> hundred;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    dir = Files.createTempDirectory(benchDirectory(), "kvp-bench-append");
    pool = PoolFile.open(dir, 1);
    List<KvpRecord> records = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      // About the size of a kvprov span record: a 120-byte key and a 300-byte value.
      records.add(new KvpRecord("kvprov-0.1|" + "k".repeat(100) + "|" + i, "v".repeat(300)));
    }
    one = List.copyOf(records.subList(0, 1));
    ten = List.copyOf(records.subList(0, 10));
    hundred = List.copyOf(records);
  }

  /**
   * Where the pool lives: {@code -Dkvp.bench.dir=…}, else {@code /dev/shm} (page cache only, no
   * disk write-back to blur the figures), else the temp directory.
   */
  static Path benchDirectory() {
    String configured = System.getProperty("kvp.bench.dir");
    if (configured != null) {
      return Path.of(configured);
    }
    Path shm = Path.of("/dev/shm");
    return Files.isDirectory(shm) && Files.isWritable(shm)
        ? shm
        : Path.of(System.getProperty("java.io.tmpdir"));
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
    Files.deleteIfExists(pool.path());
    Files.deleteIfExists(dir);
  }

  @Benchmark
  @OperationsPerInvocation(1)
  public void batchOf1() throws IOException {
    pool.append(one);
  }

  @Benchmark
  @OperationsPerInvocation(10)
  public void batchOf10() throws IOException {
    pool.append(ten);
  }

  @Benchmark
  @OperationsPerInvocation(100)
  public void batchOf100() throws IOException {
    pool.append(hundred);
  }
}
