package dev.kvprov.inspect.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvprov.fixtures.HostTools;
import dev.kvprov.inspect.render.ItemLine;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code kvp watch} against pools that other processes write while it runs: a Python script that
 * appends as cloud-init does, clears as every writer does at boot and rewrites the file in place as
 * hv_kvp_daemon does. Every wait is for a condition, bounded by a generous deadline.
 */
class WatchCommandTest {
  private static final Duration DEADLINE = Duration.ofSeconds(90);
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private final List<Watch> watches = new ArrayList<>();
  private final List<Process> processes = new ArrayList<>();

  @AfterEach
  void stopEverything() throws Exception {
    for (Watch watch : watches) {
      watch.thread.interrupt();
      watch.thread.join(DEADLINE.toMillis());
    }
    for (Process process : processes) {
      process.destroyForcibly().waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS);
    }
  }

  @Test
  void followsAppendsTheBootClearAndDaemonRewrites_printingEachItemOnce() throws Exception {
    Path pool = dir.resolve(".kvp_pool_1");
    python("append", pool, "A=a");
    Watch watch =
        watch("--dir", dir.toString(), "--json", "--interval", "50ms", "--exit-after", "11");
    watch.awaitItem("A=a");

    python("append", pool, "B=b", "C=c"); // two records, one write
    watch.awaitItem("C=c");

    python("clear", pool); // the boot-time clear: emptied in place, without a lock
    watch.await(lines -> lines.contains("err -- pool cleared --"), "the clear marker");

    python("append", pool, "D=d", "E=e");
    python("append", pool, "F=f", "G=g");
    watch.awaitItem("G=g");

    // hv_kvp_daemon deletes E: the records after it move up; a host SET adds H. Same size.
    python("rewrite", pool, "D=d", "F=f", "G=g", "H=h");
    watch.awaitItem("H=h");

    python("rewrite", pool, "D=d", "F=f2", "G=g", "H=h"); // F's value replaced in place
    watch.awaitItem("F=f2");

    python("rewrite", pool, "D=d", "F=f2", "J=j"); // smaller, but not a clear: D and F stay
    watch.awaitItem("J=j");

    python("append", pool, "D=d"); // a second, identical item is a new one
    assertThat(watch.exit()).isZero(); // --exit-after 11

    assertThat(watch.lines())
        .containsExactly(
            "0 A=a",
            "1 B=b",
            "2 C=c",
            "err -- pool cleared --",
            "0 D=d",
            "1 E=e",
            "2 F=f",
            "3 G=g",
            "3 H=h",
            "1 F=f2",
            "2 J=j",
            "3 D=d");
  }

  @Test
  void aRewriteThatLeavesSizeAndMtimeAsTheyWere_isSeen_whileTheMtimeIsNotSafelyPast()
      throws Exception {
    Path pool = dir.resolve(".kvp_pool_1");
    python("append", pool, "A=a", "B=b");
    // An mtime ahead of the clock (as after a clock step back at boot) cannot prove that nothing
    // was written since: a write in the same tick would leave it as it is.
    FileTime ahead = FileTime.from(Instant.now().plus(Duration.ofHours(1)));
    Files.setLastModifiedTime(pool, ahead);
    Watch watch =
        watch("--dir", dir.toString(), "--json", "--interval", "50ms", "--exit-after", "3");
    watch.awaitItem("B=b");

    python("rewrite-in-same-tick", pool, "A=a", "B=b2"); // same size, file and mtime

    assertThat(watch.exit()).isZero();
    assertThat(watch.lines()).containsExactly("0 A=a", "1 B=b", "1 B=b2");
  }

  @Test
  void waitsForAPoolThatDoesNotExistYet_sayingSoOnce() throws Exception {
    Path hyperv = dir.resolve("var/lib/hyperv"); // first boot creates the directory too
    Watch watch =
        watch("--root", dir.toString(), "--json", "--interval", "50ms", "--exit-after", "1");
    watch.await(lines -> !lines.isEmpty(), "the note on the missing pool");

    Files.createDirectories(hyperv);
    python("append", hyperv.resolve(".kvp_pool_1"), "first=item");

    assertThat(watch.exit()).isZero();
    assertThat(watch.lines())
        .containsExactly(
            "err kvp watch: no pool at " + hyperv.resolve(".kvp_pool_1") + " yet; waiting for it",
            "0 first=item");
  }

  @Test
  void aKvprovItemAppendedPieceByPiece_isPrintedOnceWhenComplete() throws Exception {
    Path pool = dir.resolve(".kvp_pool_1");
    String key = "kvprov-1|unknown|INFO|log|watch.test|l0123456789abcdef";
    python("append", pool, key + "|0/3=one,");
    Watch watch =
        watch("--dir", dir.toString(), "--json", "--interval", "50ms", "--exit-after", "4");
    python("append", pool, "M1=after piece 0");
    watch.awaitItem("M1=after piece 0");

    python("append", pool, key + "|2/3=three");
    python("append", pool, "M2=after piece 2");
    watch.awaitItem("M2=after piece 2");
    assertThat(watch.lines()).containsExactly("1 M1=after piece 0", "3 M2=after piece 2");

    python("append", pool, key + "|1/3=two,");
    watch.awaitItem(key + "=one,two,three");
    python("append", pool, "M3=after the item");

    assertThat(watch.exit()).isZero();
    assertThat(watch.lines())
        .containsExactly(
            "1 M1=after piece 0",
            "3 M2=after piece 2",
            "0 " + key + "=one,two,three",
            "5 M3=after the item");
  }

  @Test
  void newOnly_printsWhatIsWrittenAfterTheStart_cloudInitChunksPutBackTogether() throws Exception {
    Path pool = dir.resolve(".kvp_pool_1");
    python("append", pool, "before=the watch");
    Watch watch =
        watch(
            "--dir",
            dir.toString(),
            "--new-only",
            "--json",
            "--interval",
            "50ms",
            "--exit-after",
            "7");
    watch.await(lines -> !lines.isEmpty(), "the note on the items already there");

    List<String> cloudInit = new ArrayList<>();
    for (KvpRecord r :
        PoolFile.builder().file(KvpCommandTest.CLOUD_INIT_POOL).build().read().records()) {
      cloudInit.add(r.key() + "=" + r.value());
    }
    python("append", pool, cloudInit.toArray(String[]::new)); // 12 records, 7 items, one write

    assertThat(watch.exit()).isZero();
    List<String> expected = new ArrayList<>();
    expected.add("err kvp watch: 1 items already in " + pool + "; printing new ones");
    // The same items, in the same order, as kvp list gives for the pool on its own (shifted by
    // the one record before them).
    for (JsonNode item : listJson(KvpCommandTest.CLOUD_INIT_POOL)) {
      expected.add(
          (item.path("index").asInt() + 1)
              + " "
              + item.path("key").asText()
              + "="
              + item.path("value").asText());
    }
    assertThat(watch.lines()).hasSize(8).containsExactlyElementsOf(expected);
  }

  @Test
  void aPoolOnStdin_aBadDurationOrANonexistentPoolNumber_isAUsageError() throws Exception {
    Watch stdin = watch("--file", "-");
    assertThat(stdin.exit()).isEqualTo(2);
    assertThat(stdin.lines())
        .contains(
            "err kvp watch: it follows a pool file; stdin and host exports cannot be watched");

    Watch badInterval = watch("--dir", dir.toString(), "--interval", "soon");
    assertThat(badInterval.exit()).isEqualTo(2);
    assertThat(String.join("\n", badInterval.lines())).contains("'soon' is not a duration");

    Watch zero = watch("--dir", dir.toString(), "--exit-after", "0");
    assertThat(zero.exit()).isEqualTo(2);

    Watch noSuchPool = watch("--dir", dir.toString(), "--pool", "4");
    assertThat(noSuchPool.exit()).isEqualTo(2);
  }

  @Test
  void timeout_beforeExitAfterIsReached_exitsOne_otherwiseZero() throws Exception {
    python("append", dir.resolve(".kvp_pool_1"), "only=one");

    Watch short1 = watch("--dir", dir.toString(), "--timeout", "300ms", "--exit-after", "2");
    assertThat(short1.exit()).isEqualTo(1);
    assertThat(short1.lines())
        .last()
        .isEqualTo("err kvp watch: --timeout ran out with 1 of 2 items printed");

    Watch plain = watch("--dir", dir.toString(), "--timeout", "300ms");
    assertThat(plain.exit()).isZero();
    assertThat(plain.lines()).containsExactly(OTHER + "only = one");
  }

  @Test
  void ctrlC_endsTheWatchCleanly_withExitZero() throws Exception {
    Path pool = dir.resolve(".kvp_pool_1");
    python("append", pool, "A=a");
    Process kvp = kvpProcess("watch", "--dir", dir.toString(), "--interval", "50ms");
    Output stdout = Output.of(kvp.getInputStream());
    Output stderr = Output.of(kvp.getErrorStream());
    stdout.await(text -> text.contains(OTHER + "A = a\n"));

    Process kill = new ProcessBuilder("kill", "-INT", Long.toString(kvp.pid())).start();
    assertThat(kill.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();

    assertThat(kvp.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
    assertThat(kvp.exitValue()).as(stderr.text()).isZero();
    assertThat(stderr.text()).isEmpty();
  }

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void theWatchEnds_whenWhatReadsItsOutputHasGone() throws Exception {
    Path pool = dir.resolve(".kvp_pool_1");
    python("append", pool, "A=a");
    Process kvp = kvpProcess("watch", "--dir", dir.toString(), "--interval", "50ms");
    Output stderr = Output.of(kvp.getErrorStream());
    // Read on this thread, so that nothing is reading when the pipe is closed (a read in progress
    // would keep it open); the timeout above bounds these blocking reads.
    BufferedReader stdout = new BufferedReader(new InputStreamReader(kvp.getInputStream(), UTF_8));
    assertThat(stdout.readLine()).isEqualTo(OTHER + "A = a");

    stdout.close(); // like `kvp watch | head -1` once head has its line
    python("append", pool, "B=b"); // the next write finds no reader

    assertThat(kvp.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
    assertThat(kvp.exitValue()).as(stderr.text()).isZero();
  }

  // --- helpers ---------------------------------------------------------------------------------

  /** How a line starts for another program's record: no time, no level, its writer. */
  private static final String OTHER = " ".repeat(ItemLine.INDENT - 12) + "other       ";

  /**
   * {@code kvp watch ARGS} in this JVM, on its own thread, with its output captured line by line.
   */
  private Watch watch(String... args) {
    Watch watch = new Watch(args);
    watches.add(watch);
    return watch;
  }

  private static final class Watch {
    private final List<String> lines = Collections.synchronizedList(new ArrayList<>());
    private final FutureTask<Integer> run;
    private final Thread thread;

    Watch(String... args) {
      CommandLine cli = KvpCommand.commandLine();
      cli.setOut(new PrintWriter(new LineWriter(lines, null), true));
      cli.setErr(new PrintWriter(new LineWriter(lines, "err "), true));
      String[] argv = Stream.concat(Stream.of("watch"), Stream.of(args)).toArray(String[]::new);
      run = new FutureTask<>(() -> cli.execute(argv));
      thread = new Thread(run, "kvp-watch");
      thread.start();
    }

    /**
     * What was printed, in order: stderr lines as {@code err <line>}, items (JSON Lines) as {@code
     * <index> <key>=<value>}, other stdout lines as they are.
     */
    List<String> lines() {
      synchronized (lines) {
        return List.copyOf(lines);
      }
    }

    void await(Predicate<List<String>> condition, String what) throws InterruptedException {
      long end = System.nanoTime() + DEADLINE.toNanos();
      while (!condition.test(lines())) {
        if (System.nanoTime() > end || run.isDone()) {
          fail("watch did not print " + what + "; it printed " + lines());
        }
        Thread.sleep(10);
      }
    }

    void awaitItem(String keyAndValue) throws InterruptedException {
      await(
          lines -> lines.stream().anyMatch(l -> l.endsWith(" " + keyAndValue)),
          "the item " + keyAndValue);
    }

    int exit() throws InterruptedException, ExecutionException {
      try {
        return run.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        return fail("watch did not stop; it printed " + lines());
      }
    }
  }

  /** Collects whole lines into a shared list, rendering JSON items for short assertions. */
  private static final class LineWriter extends Writer {
    private final List<String> lines;
    private final String tag;
    private final StringBuilder line = new StringBuilder();

    LineWriter(List<String> lines, String tag) {
      this.lines = lines;
      this.tag = tag;
    }

    @Override
    public void write(char[] chars, int offset, int length) {
      for (int i = offset; i < offset + length; i++) {
        if (chars[i] != '\n') {
          line.append(chars[i]);
          continue;
        }
        lines.add(tag != null ? tag + line : render(line.toString()));
        line.setLength(0);
      }
    }

    private static String render(String line) {
      if (!line.startsWith("{")) {
        return line;
      }
      try {
        JsonNode item = JSON.readTree(line);
        return item.path("index").asInt()
            + " "
            + item.path("key").asText()
            + "="
            + item.path("value").asText();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  }

  private static List<JsonNode> listJson(Path pool) throws IOException {
    StringWriter out = new StringWriter();
    CommandLine cli = KvpCommand.commandLine();
    cli.setOut(new PrintWriter(out, true));
    assertThat(cli.execute("list", "--json", "--file", pool.toString())).isZero();
    List<JsonNode> items = new ArrayList<>();
    for (String line : out.toString().lines().toList()) {
      items.add(JSON.readTree(line));
    }
    return items;
  }

  /** Runs {@code pool_writer.py OPERATION POOL ITEMS} in its own process, to the end. */
  private void python(String operation, Path pool, String... items) throws Exception {
    HostTools.assumeInstalled("python3", "python3");
    List<String> command =
        new ArrayList<>(List.of("python3", script(), operation, pool.toString()));
    command.addAll(List.of(items));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    processes.add(process);
    Output output = Output.of(process.getInputStream());
    assertThat(process.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(output.text()).isZero();
  }

  private static String script() throws URISyntaxException {
    return Path.of(WatchCommandTest.class.getResource("pool_writer.py").toURI()).toString();
  }

  /** {@code kvp ARGS} as a JVM of its own, as bin/kvp runs it. */
  private Process kvpProcess(String... args) throws IOException {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                KvpCommand.class.getName()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).start();
    processes.add(process);
    return process;
  }

  /** A process's output, drained on a thread of its own into a buffer. */
  private static final class Output {
    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();

    static Output of(InputStream in) {
      Output output = new Output();
      Thread drain =
          new Thread(
              () -> {
                byte[] chunk = new byte[8192];
                try {
                  for (int n; (n = in.read(chunk)) >= 0; ) {
                    synchronized (output.buffer) {
                      output.buffer.write(chunk, 0, n);
                    }
                  }
                } catch (IOException e) {
                  // closed by the test: nothing more to drain
                }
              },
              "drain");
      drain.setDaemon(true);
      drain.start();
      return output;
    }

    String text() {
      synchronized (buffer) {
        return buffer.toString(UTF_8);
      }
    }

    void await(Predicate<String> condition) throws InterruptedException {
      long end = System.nanoTime() + DEADLINE.toNanos();
      while (!condition.test(text())) {
        if (System.nanoTime() > end) {
          fail("the output never matched; it is: " + text());
        }
        Thread.sleep(10);
      }
    }
  }
}
