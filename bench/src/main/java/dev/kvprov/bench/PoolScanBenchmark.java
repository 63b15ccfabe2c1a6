package dev.kvprov.bench;

import dev.kvprov.kvp.KvpProblem;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolEntry;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.PoolVisitor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * A full locked scan of a pool in the page cache, every record decoded and validated. Runs in a 64
 * MB heap: the 100,000-record pool is 256 MB, so it can only pass if memory stays flat.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx64m"})
public class PoolScanBenchmark {
  @Param({"1024", "100000"})
  public int records;

  private Path dir;
  private PoolFile pool;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    dir = Files.createTempDirectory(PoolAppendBenchmark.benchDirectory(), "kvp-bench-scan");
    pool = PoolFile.open(dir, 1);
    List<KvpRecord> batch = new ArrayList<>(1000);
    for (int i = 0; i < records; i++) {
      batch.add(
          new KvpRecord(
              "CLOUD_INIT|1795322355|finish|init-network/config-" + i,
              "{\"name\":\"init-network/config\",\"type\":\"finish\",\"result\":\"SUCCESS\",\"msg\":\""
                  + "m".repeat(i % 600)
                  + "\"}"));
      if (batch.size() == 1000) {
        pool.append(batch);
        batch.clear();
      }
    }
    pool.append(batch);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    Files.deleteIfExists(pool.path());
    Files.deleteIfExists(dir);
  }

  @Benchmark
  public void scan(Blackhole hole) throws IOException {
    pool.scan(
        new PoolVisitor() {
          @Override
          public void entry(PoolEntry entry) {
            hole.consume(entry);
          }

          @Override
          public void problem(KvpProblem problem) {
            hole.consume(problem);
          }
        });
  }
}
