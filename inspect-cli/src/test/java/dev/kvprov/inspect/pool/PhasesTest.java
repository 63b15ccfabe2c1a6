package dev.kvprov.inspect.pool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.fixtures.Fixtures;
import dev.kvprov.inspect.cli.KvpCommand;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code -Dkvp.phases=true} says where a run's time went, phase by phase, on stderr; without it, a
 * run's stderr has none of it. Each in a JVM of its own, as {@code bench/kvp-phases.sh} runs them.
 */
class PhasesTest {
  private static Process kvp(String... options) throws Exception {
    List<String> command =
        new java.util.ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path")));
    command.addAll(List.of(options));
    command.addAll(
        List.of(
            KvpCommand.class.getName(),
            "list",
            "--file",
            Fixtures.path(Fixtures.CLOUD_INIT_POOL).toString()));
    return new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
  }

  private static List<String> stderr(Process p) throws Exception {
    List<String> lines =
        new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    p.waitFor();
    return lines;
  }

  @Test
  void phases_areSaidInOrder_withTimesThatOnlyGrow() throws Exception {
    List<String> lines =
        stderr(kvp("-Dkvp.phases=true")).stream().filter(l -> l.startsWith("kvp phase:")).toList();

    assertThat(lines)
        .extracting(l -> l.replaceFirst(".* classes  ", ""))
        .containsExactly(
            "JVM start to main",
            "command model (picocli)",
            "arguments parsed, command begun",
            "pool read (and its items handed on, but the last few)",
            "the last items handed on",
            "the rest of the command (a tree drawn, a report written)",
            "output flushed");
    List<Long> times = lines.stream().map(l -> Long.parseLong(l.split("\\s+")[2])).toList();
    assertThat(times).isSorted();
  }

  @Test
  void withoutTheProperty_nothingIsSaid() throws Exception {
    assertThat(stderr(kvp())).noneMatch(l -> l.startsWith("kvp phase:"));
  }
}
