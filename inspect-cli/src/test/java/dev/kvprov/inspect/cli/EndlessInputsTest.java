package dev.kvprov.inspect.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.kvprov.inspect.CliRun;
import dev.kvprov.inspect.RawPool;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Inputs that would never end or never start: a named pipe nobody writes, a link to {@code
 * /dev/zero}, a directory, an endless stdin. Every command answers at once with exit 3 and one line
 * saying what the input is; none waits or reads for ever.
 */
class EndlessInputsTest {
  private static final Duration HANG = Duration.ofSeconds(60);

  @TempDir Path dir;

  private static final List<String> COMMANDS =
      List.of("list", "tree", "report", "doctor", "decode", "timeline", "blame", "get");

  private Path fifo() throws Exception {
    Path fifo = dir.resolve(".kvp_pool_1");
    assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
    return fifo;
  }

  private static String[] args(String command, String... more) {
    List<String> all = new java.util.ArrayList<>(List.of(command));
    if (command.equals("get")) {
      all.add("PROVISIONING_REPORT");
    }
    all.addAll(List.of(more));
    return all.toArray(String[]::new);
  }

  @ParameterizedTest
  @ValueSource(strings = {"list", "tree", "report", "doctor", "decode", "timeline", "blame", "get"})
  void aNamedPipe_isRefusedAtOnce_byEveryCommand(String command) throws Exception {
    Path fifo = fifo();

    CliRun run =
        assertTimeoutPreemptively(HANG, () -> CliRun.of(args(command, "--file", fifo.toString())));

    assertThat(run.exit()).isEqualTo(3);
    assertThat(run.err().strip())
        .isEqualTo(
            "kvp "
                + command
                + ": "
                + fifo
                + ": a named pipe, not a pool file (kvp reads files, or stdin with --file - or"
                + " --host-xml -)");
  }

  @Test
  void thePoolsOwnName_asANamedPipe_isRefusedByTheLiveReaderAndWatch() throws Exception {
    Path fifo = fifo();

    CliRun list = assertTimeoutPreemptively(HANG, () -> CliRun.of("list", "--dir", dir.toString()));
    CliRun watch =
        assertTimeoutPreemptively(
            HANG, () -> CliRun.of("watch", "--dir", dir.toString(), "--timeout", "1s"));

    assertThat(list.exit()).isEqualTo(3);
    assertThat(list.err()).contains(fifo + ": a named pipe");
    assertThat(watch.exit()).isEqualTo(3);
    assertThat(watch.err()).contains(fifo + ": a named pipe");
  }

  @Test
  void aLinkToDevZero_aDirectory_andAHostExportThatIsAPipe_areRefused() throws Exception {
    Path zero = dir.resolve("zero.kvp");
    Files.createSymbolicLink(zero, Path.of("/dev/zero"));
    Path folder = Files.createDirectories(dir.resolve("folder"));
    Path fifo = fifo();

    for (String command : COMMANDS) {
      CliRun onZero =
          assertTimeoutPreemptively(
              HANG, () -> CliRun.of(args(command, "--file", zero.toString())));
      CliRun onFolder =
          assertTimeoutPreemptively(
              HANG, () -> CliRun.of(args(command, "--file", folder.toString())));
      CliRun onExport =
          assertTimeoutPreemptively(
              HANG, () -> CliRun.of(args(command, "--host-xml", fifo.toString())));

      assertThat(onZero.exit()).as(command).isEqualTo(3);
      assertThat(onZero.err()).as(command).contains(zero + ": a character device, not a pool file");
      assertThat(onFolder.exit()).as(command).isEqualTo(3);
      assertThat(onFolder.err()).as(command).contains(folder + ": a directory, not a pool file");
      assertThat(onExport.exit()).as(command).isEqualTo(3);
      assertThat(onExport.err()).as(command).contains(fifo + ": a named pipe");
    }
  }

  @Test
  void anEndlessStdin_isReadUpToItsCap_thenRefused() throws Exception {
    CliRun run = reportOnStdin(endless());

    assertThat(run.exit()).isEqualTo(3);
    assertThat(run.err().strip())
        .isEqualTo(
            "kvp report: stdin: more than 512 MiB: no pool or export is that large; stopped reading");
  }

  /** {@code kvp report --file -} with {@code stdin} as its standard input, within {@link #HANG}. */
  private static CliRun reportOnStdin(InputStream stdin) {
    InputStream saved = System.in;
    System.setIn(stdin);
    try {
      return assertTimeoutPreemptively(HANG, () -> CliRun.of("report", "--file", "-"));
    } finally {
      System.setIn(saved);
    }
  }

  /** Records for ever, as a pool looks: {@code cat /dev/urandom}-sized, never ending. */
  private static InputStream endless() {
    byte[] record = new RawPool().add("key", "value").bytes();
    return new InputStream() {
      private long at;

      @Override
      public int read() {
        return record[(int) (at++ % record.length)] & 0xFF;
      }

      @Override
      public int read(byte[] b, int off, int len) {
        for (int i = 0; i < len; i++) {
          b[off + i] = record[(int) (at++ % record.length)];
        }
        return len;
      }
    };
  }

  @Test
  void anEndlessStdinOfText_isRefusedAtOnce() throws Exception {
    CliRun run =
        reportOnStdin(
            new InputStream() {
              @Override
              public int read() {
                return 'y'; // yes | kvp report --file -
              }
            });

    assertThat(run.exit()).isEqualTo(3);
    assertThat(run.err().strip()).startsWith("kvp report: stdin: is text, not a KVP pool");
  }

  @Test
  void doctor_onAPoolOfNoise_listsAThousandProblems_andCountsTheRest() throws Exception {
    RawPool noise = new RawPool();
    for (int i = 0; i < 3000; i++) {
      noise.add(new byte[] {(byte) 0xC3, (byte) 0x28, (byte) ('a' + i % 26)}, new byte[] {'v'});
    }
    Path pool = dir.resolve("noise.kvp");
    Files.write(pool, noise.bytes());

    CliRun run = CliRun.of("doctor", "--json", "--file", pool.toString());

    assertThat(run.exit()).isEqualTo(1);
    var problems = run.json().path("problems");
    assertThat(problems.size()).isBetween(1001, 1003);
    assertThat(problems.get(DoctorCommand.MAX_LISTED).path("kind").asText())
        .isEqualTo("more_problems");
    assertThat(problems.get(DoctorCommand.MAX_LISTED).path("message").asText())
        .matches("\\d+ more problems, not listed \\(doctor lists 1000\\)");
  }
}
