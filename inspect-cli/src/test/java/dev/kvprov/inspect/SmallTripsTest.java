package dev.kvprov.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.fixtures.Fixtures;
import dev.kvprov.kvp.IoErrors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a tired reader trips on: a flood where a line was due, a cut summary, raw errno text. */
class SmallTripsTest {
  @TempDir Path dir;

  @Test
  void traceEvent_writesTheFile_andSaysSoInOneLine_notTheTextTimeline() throws Exception {
    Path file = dir.resolve("boot.json");
    String pool = Fixtures.path(Fixtures.AZURE_INIT_DIAG_POOL).toString();

    CliRun run = CliRun.of("timeline", "--trace-event", file.toString(), "--file", pool);

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out().lines().toList())
        .singleElement()
        .asString()
        .startsWith("wrote " + file + ": ");
    assertThat(Files.readString(file)).startsWith("{\"traceEvents\":[");
  }

  @Test
  void helpSummaries_eachFitsItsLine_atEightyColumns() {
    List<String> commands =
        CliRun.of("--help")
            .out()
            .lines()
            .dropWhile(l -> !l.equals("Commands:"))
            .skip(1)
            .takeWhile(l -> !l.isBlank())
            .toList();

    assertThat(commands).hasSizeGreaterThan(10);
    // a continuation line (deeper than the command column) is a summary cut mid-sentence
    assertThat(commands).allSatisfy(l -> assertThat(l).startsWith("  ").doesNotStartWith("   "));
  }

  @Test
  void anUnknownCommand_withHelp_isTheSameUsageError_asWithout() {
    CliRun plain = CliRun.of("nosuch");
    CliRun help = CliRun.of("nosuch", "--help");

    assertThat(plain.exit()).isEqualTo(2);
    assertThat(help.exit()).isEqualTo(2);
    assertThat(help.out()).isEmpty();
    assertThat(help.err()).startsWith("kvp: 'nosuch' is not a kvp command");
  }

  @Test
  void rawSystemText_isSaidInPlainWords() {
    assertThat(IoErrors.reason(new IOException("Illegal seek")))
        .isEqualTo("a pipe or a terminal, not a file that can be read at any position");
    assertThat(IoErrors.reason(new IOException("No space left on device")))
        .isEqualTo("No space left on device");
  }

  @Test
  void watch_takesLevel_likeList() throws Exception {
    Path pool = dir.resolve("pool.kvp");
    String span =
        "Start: 2026-11-22T04:47:40.000Z | End: 2026-11-22T04:47:41.000Z | Trace: "
            + "4bf92f3577b34da6a3ce929d0e0e4736 | Status: unset | Name: ";
    dev.kvprov.kvp.PoolFile.builder()
        .file(pool)
        .build()
        .append(
            List.of(
                new dev.kvprov.kvp.KvpRecord(
                    "kvprov-1|vm|INFO|end|media.read_ovf|0000000000000001",
                    span + "media.read_ovf | Span: 0000000000000001"),
                new dev.kvprov.kvp.KvpRecord(
                    "kvprov-1|vm|WARN|end|imds.attempt|0000000000000002",
                    span
                        + "imds.attempt | Span: 0000000000000002 | Attr: kvprov.warning=IMDS"
                        + " answered HTTP 503; trying again in 0.2 s")));

    CliRun run =
        CliRun.of(
            "watch",
            "--level",
            "WARN",
            "--exit-after",
            "1",
            "--interval",
            "50ms",
            "--file",
            pool.toString());

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out()).contains("imds.attempt warning").doesNotContain("media.read_ovf");
  }
}
