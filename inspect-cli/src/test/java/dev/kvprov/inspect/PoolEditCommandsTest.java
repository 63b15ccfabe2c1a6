package dev.kvprov.inspect;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.fixtures.Fixtures;
import dev.kvprov.inspect.text.Text;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kvp dump}, {@code append} and {@code clear}: the Rust peer's verbs, through the store. */
class PoolEditCommandsTest {
  @TempDir Path dir;

  private static CliRun withStdin(String text, String... args) {
    InputStream saved = System.in;
    System.setIn(new ByteArrayInputStream(text.getBytes(UTF_8)));
    try {
      return CliRun.of(args);
    } finally {
      System.setIn(saved);
    }
  }

  @Test
  void dump_printsEveryRecordAsStored_oneLineEach_neverCut() throws Exception {
    CliRun run = CliRun.of("dump", "--file", Fixtures.path(Fixtures.CLOUD_INIT_POOL).toString());

    assertThat(run.exit()).isZero();
    List<String> lines = run.out().lines().toList();
    assertThat(lines).hasSize(12);
    List<KvpRecord> records =
        PoolFile.builder().file(Fixtures.path(Fixtures.CLOUD_INIT_POOL)).build().read().records();
    for (int i = 0; i < records.size(); i++) {
      assertThat(lines.get(i))
          .isEqualTo(
              Text.printable(records.get(i).key()) + "=" + Text.printable(records.get(i).value()));
    }
  }

  @Test
  void append_writesManyLinesInOneGo_inOrder() throws Exception {
    Path pool = dir.resolve(".kvp_pool_1");
    String lines =
        IntStream.range(0, 500)
                .mapToObj(i -> "key" + i + "=value=" + i)
                .collect(Collectors.joining("\n"))
            + "\n# a comment\n\n";

    CliRun run = withStdin(lines, "append", "--file", pool.toString());

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out()).isEqualTo("appended 500 record(s) to " + pool + "\n");
    List<KvpRecord> records = PoolFile.builder().file(pool).build().read().records();
    assertThat(records).hasSize(500);
    assertThat(records.get(499)).isEqualTo(new KvpRecord("key499", "value=499"));
  }

  @Test
  void append_withAWrongLine_saysEachAndWritesNothing() throws Exception {
    Path pool = dir.resolve(".kvp_pool_1");
    Files.writeString(
        dir.resolve("lines"), "good=1\nno-equals\n=empty\nlong=" + "x".repeat(1100) + "\n");

    CliRun run =
        CliRun.of("append", "--from", dir.resolve("lines").toString(), "--file", pool.toString());

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err())
        .isEqualTo(
            "kvp append: line 2: no '=' between a key and a value\n"
                + "kvp append: line 3: key is empty\n"
                + "kvp append: line 4: value is 1100 bytes of UTF-8; the host-safe limit is 1022"
                + " bytes\n"
                + "kvp append: nothing written\n");
    assertThat(
            Files.exists(pool) ? PoolFile.builder().file(pool).build().read().records() : List.of())
        .isEmpty();
  }

  @Test
  void clear_keepsACopyWhenAsked_andIfStale_leavesThisBootsPoolAlone() throws Exception {
    Path pool = dir.resolve(".kvp_pool_1");
    Files.write(pool, Fixtures.bytes(Fixtures.CLOUD_INIT_POOL));

    CliRun fresh = CliRun.of("clear", "--if-stale", "--file", pool.toString());
    assertThat(fresh.out()).isEqualTo(pool + " was written this boot: left as it is\n");
    assertThat(Files.size(pool)).isEqualTo(12 * 2560);

    Files.setLastModifiedTime(pool, FileTime.from(Instant.parse("2020-01-01T00:00:00Z")));
    Path archive = dir.resolve("archive");
    CliRun stale =
        CliRun.of(
            "clear", "--if-stale", "--archive", archive.toString(), "--file", pool.toString());

    assertThat(stale.exit()).as(stale.err()).isZero();
    assertThat(stale.out())
        .startsWith("cleared 12 record(s) from " + pool + "; a copy is in " + archive);
    assertThat(Files.size(pool)).isZero();
    try (var copies = Files.list(archive)) {
      Path copy = copies.findFirst().orElseThrow();
      assertThat(Files.readAllBytes(copy)).isEqualTo(Fixtures.bytes(Fixtures.CLOUD_INIT_POOL));
    }

    Files.write(pool, Fixtures.bytes(Fixtures.CLOUD_INIT_POOL));
    CliRun whenever = CliRun.of("clear", "--file", pool.toString());
    // not this machine's live pool: a copy is kept beside it even unasked (WriteTargetsTest)
    assertThat(whenever.out())
        .matches(
            java.util.regex.Pattern.quote(
                    "cleared 12 record(s) from " + pool + "; a copy is in " + dir.resolve("pool1-"))
                + "\\d+\\.kvp\n");
  }

  @Test
  void clear_withNoPlaceForTheCopyAskedFor_clearsNothing() throws Exception {
    Path pool = dir.resolve(".kvp_pool_1");
    Files.write(pool, Fixtures.bytes(Fixtures.CLOUD_INIT_POOL));
    Path notADirectory = Files.writeString(dir.resolve("file"), "x");

    CliRun run =
        CliRun.of(
            "clear",
            "--archive",
            notADirectory.resolve("archive").toString(),
            "--file",
            pool.toString());

    assertThat(run.exit()).isEqualTo(3);
    assertThat(run.err()).endsWith("; nothing cleared\n");
    assertThat(Files.size(pool)).isEqualTo(12 * 2560);
  }

  @Test
  void append_toAPoolAWriterTore_saysTheRepairInOnePlainLine_notTheJdksLog() throws Exception {
    // Once before stderr is watched: in a test JVM where the fuzz tests ran, their agent says on
    // stderr each class of ours it instruments as it loads, which is not the JDK's log.
    withStdin(
        "after=whole\n",
        "append",
        "--file",
        tornPool(dir.resolve("warm-up/.kvp_pool_1")).toString());
    Path pool = tornPool(dir.resolve(".kvp_pool_1"));
    java.io.PrintStream savedErr = System.err;
    java.io.ByteArrayOutputStream jdk = new java.io.ByteArrayOutputStream();
    CliRun run;
    System.setErr(new java.io.PrintStream(jdk, true, UTF_8));
    try {
      run = withStdin("after=whole\n", "append", "--file", pool.toString());
    } finally {
      System.setErr(savedErr);
    }

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.err().lines().toList())
        .singleElement()
        .asString()
        .startsWith("kvp append: " + pool + " held part of a record (10 bytes at offset ")
        .doesNotContain("dev.kvprov");
    assertThat(jdk.toString(UTF_8)).isEmpty(); // no java.util.logging line beside it
    assertThat(PoolFile.builder().file(pool).build().read().records())
        .containsExactly(new KvpRecord("before", "whole"), new KvpRecord("after", "whole"));
  }

  /** A pool holding one whole record, then part of one: a writer died mid-write. */
  private static Path tornPool(Path pool) throws Exception {
    PoolFile.builder().file(pool).build().append(List.of(new KvpRecord("before", "whole")));
    byte[] bytes = Files.readAllBytes(pool);
    byte[] torn = java.util.Arrays.copyOf(bytes, bytes.length + 10);
    torn[bytes.length] = 'x';
    Files.write(pool, torn);
    return pool;
  }
}
