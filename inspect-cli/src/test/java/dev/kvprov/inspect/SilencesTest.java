package dev.kvprov.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where kvp used to say nothing, a word: an empty list, a wait, a prompt, a pool yet to come. */
class SilencesTest {
  @TempDir Path dir;

  @Test
  void listAtALevel_withNothingToShow_saysSoOnStderr_inOneLine() throws Exception {
    Path pool = dir.resolve("pool.kvp");
    PoolFile.builder().file(pool).build().append(List.of(new KvpRecord("image", "2026.11")));

    CliRun run = CliRun.of("list", "--level", "WARN", "--file", pool.toString());

    assertThat(run.exit()).isZero();
    assertThat(run.out()).isEmpty();
    assertThat(run.err()).isEqualTo("kvp list: no item at WARN or above in " + pool + "\n");
  }

  @Test
  void statusWait_onATerminal_showsWhereItIs_whileItWaits() throws Exception {
    AtTerminal.Shown shown =
        AtTerminal.run(
            80,
            "",
            "status",
            "--wait",
            "--timeout",
            "2s",
            "--interval",
            "100ms",
            "--dir",
            dir.toString());

    assertThat(shown.exit()).as(shown.text()).isEqualTo(4);
    assertThat(shown.text())
        .contains("kvp status: waiting for a verdict, ")
        .contains("not started")
        .contains("status:   not started");
  }

  @Test
  void append_atATerminal_saysHowTheInputEnds() throws Exception {
    Path pool = dir.resolve("pool.kvp");

    AtTerminal.Shown shown =
        AtTerminal.run(80, "step=done\n\u0004", "append", "--file", pool.toString());

    assertThat(shown.exit()).as(shown.text()).isZero();
    assertThat(shown.text()).contains("then Ctrl-D on a line of its own");
    assertThat(PoolFile.builder().file(pool).build().read().records())
        .containsExactly(new KvpRecord("step", "done"));
  }

  @Test
  void statusWait_underARoot_waitsForAPoolNotWrittenYet_likeDir() throws Exception {
    Path root = dir.resolve("disk");
    Files.createDirectories(root.resolve("var/lib/hyperv"));
    Path pools = root.resolve("var/lib/hyperv");

    CliRun underRoot =
        CliRun.of(
            "status", "--wait", "--timeout", "300ms", "--interval", "50ms", "--root", "" + root);
    CliRun inDir =
        CliRun.of(
            "status", "--wait", "--timeout", "300ms", "--interval", "50ms", "--dir", "" + pools);
    CliRun plain = CliRun.of("status", "--root", root.toString());

    assertThat(underRoot.exit()).as(underRoot.err()).isEqualTo(4);
    assertThat(underRoot.out()).startsWith("status:   not started\n");
    assertThat(underRoot.err()).isEmpty();
    assertThat(inDir.exit()).isEqualTo(underRoot.exit());
    assertThat(plain.exit()).isEqualTo(4);
  }

  @Test
  void status_underARootThatIsNotThere_isAnError_notABootToWaitFor() {
    Path typo = dir.resolve("mnt/rescued-dsik");

    CliRun run =
        CliRun.of("status", "--wait", "--timeout", "5s", "--interval", "50ms", "--root", "" + typo);

    assertThat(run.exit()).isEqualTo(3);
    assertThat(run.err())
        .isEqualTo("kvp status: " + typo + ": no such directory; is the disk mounted there?\n");
    assertThat(run.out()).isEmpty();
  }
}
