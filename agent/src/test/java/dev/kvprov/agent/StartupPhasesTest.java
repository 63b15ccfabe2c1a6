package dev.kvprov.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The milestones bench/breakdown.sh reads. */
class StartupPhasesTest {
  @TempDir Path dir;

  @Test
  void theMilestonesAreWrittenInOrderWithEachThreadsCpu() throws Exception {
    Path file = dir.resolve("phases");
    StartupPhases phases = new StartupPhases(file, false);
    phases.milestone("main");
    phases.milestone("cli");
    phases.writeFile();
    try (Stream<String> lines = Files.lines(file)) {
      var rows = lines.map(l -> l.split("\t")).toList();
      assertThat(rows.get(0)[0]).isEqualTo("main");
      assertThat(rows.get(1)[0]).isEqualTo("cli");
      assertThat(Long.parseLong(rows.get(1)[1]))
          .isGreaterThanOrEqualTo(Long.parseLong(rows.get(0)[1]));
      assertThat(rows.get(0)[2]).isEqualTo("-1");
      assertThat(rows.stream().filter(r -> r[0].startsWith("cpu "))).isNotEmpty();
    }
  }

  @Test
  void theFileIsNewAndTheOwnersOnly_neverWrittenThroughALinkNorOverAFile() throws Exception {
    Path victim = Files.writeString(dir.resolve("victim"), "kept");
    Path link = Files.createSymbolicLink(dir.resolve("link"), victim);
    for (Path target : new Path[] {link, victim}) {
      StartupPhases phases = new StartupPhases(target, false);
      phases.milestone("main");
      phases.writeFile(); // said on stderr, never thrown: the run's exit is the run's
    }
    assertThat(Files.readString(victim)).isEqualTo("kept");

    Path file = dir.resolve("phases");
    StartupPhases phases = new StartupPhases(file, false);
    phases.milestone("main");
    phases.writeFile();
    assertThat(
            java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
  }

  @Test
  void aFileThatCannotBeWritten_isSaid_andChangesNothingElse() {
    StartupPhases phases = new StartupPhases(dir.resolve("no/such/dir/phases"), false);
    phases.milestone("main");
    phases.writeFile();
    assertThat(dir.resolve("no")).doesNotExist();
  }
}
