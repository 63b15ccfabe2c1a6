package dev.kvprov.agent.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VerdictGenerationsTest {
  @TempDir Path dir;

  @Test
  void eachRunTakesTheNextNumber_andRemembersItsOwn() throws Exception {
    VerdictGenerations first = VerdictGenerations.in(dir.resolve("state"));
    VerdictGenerations second = VerdictGenerations.in(dir.resolve("state"));

    assertThat(first.taken()).isEmpty();
    assertThat(first.take()).isEqualTo(1);
    assertThat(second.take()).isEqualTo(2);

    assertThat(first.taken()).hasValue(1);
    assertThat(second.taken()).hasValue(2);
    assertThat(Files.readString(dir.resolve("state/verdict-generation"))).isEqualTo("2\n");
  }

  @Test
  void aWriteForAnOlderNumber_doesNotRun_oneForTheNewestDoes() throws Exception {
    VerdictGenerations older = VerdictGenerations.in(dir);
    VerdictGenerations newer = VerdictGenerations.in(dir);
    long olderNumber = older.take();
    long newerNumber = newer.take();
    List<String> written = new ArrayList<>();

    assertThat(older.writeUnlessSuperseded(olderNumber, () -> written.add("older"))).isFalse();
    assertThat(newer.writeUnlessSuperseded(newerNumber, () -> written.add("newer"))).isTrue();

    assertThat(written).containsExactly("newer");
  }

  @Test
  void aFileThatHoldsNoNumber_isSaidInPlainWords_andNothingIsWritten() throws Exception {
    Files.writeString(dir.resolve("verdict-generation"), "garbage\u0007");
    VerdictGenerations verdicts = VerdictGenerations.in(dir);

    assertThatThrownBy(verdicts::take)
        .isInstanceOf(IOException.class)
        .hasMessage(dir.resolve("verdict-generation") + " holds no number: 'garbage?'");
    assertThat(verdicts.taken()).isEmpty();
    assertThatThrownBy(() -> verdicts.writeUnlessSuperseded(1, () -> {}))
        .isInstanceOf(IOException.class);
  }
}
