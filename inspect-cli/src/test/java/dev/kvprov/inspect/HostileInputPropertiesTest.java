package dev.kvprov.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.fixtures.Trials;
import dev.kvprov.inspect.pool.InputKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every read command, fed random and mutated pools: an answer, never an unchecked exception. What
 * the commands share (items, spans, timelines) is held to stricter properties, with many more
 * tries, in {@link PoolModelPropertiesTest}; this covers what only a command does (rendering, exit
 * codes), each run built as {@code bin/kvp} builds it.
 */
class HostileInputPropertiesTest {
  private static final List<List<String>> COMMANDS =
      List.of(
          List.of("list", "--json"),
          List.of("list"),
          List.of("tree", "--json"),
          List.of("tree"),
          List.of("report"),
          List.of("doctor", "--json"),
          List.of("decode"),
          List.of("export", "--otlp-json", "-"),
          List.of("list", "--raw", "--json"),
          List.of("list", "--level", "WARN", "--since", "2026-11-22T04:47:46Z"),
          List.of("blame", "--json"),
          List.of("timeline", "--json"),
          List.of("get", "PROVISIONING_REPORT"),
          List.of("watch", "--interval", "1ms", "--timeout", "3ms")); // a first look, then ticks

  @Test
  void readCommands_neverThrow() {
    Trials.run(150, r -> everyCommandAnswers(HostilePools.pool(r), "--file"));
  }

  /** Host exports made from the same pools, with characters flipped or cut short. */
  @Test
  void readCommands_onHostExports_neverThrow() {
    Trials.run(
        100,
        r ->
            everyCommandAnswers(
                HostilePools.export(r).getBytes(java.nio.charset.StandardCharsets.UTF_8),
                "--host-xml"));
  }

  private static void everyCommandAnswers(byte[] input, String option) throws Exception {
    Path file = Files.createTempFile("kvp-fuzz", ".kvp");
    try {
      Files.write(file, input);
      for (List<String> command : COMMANDS) {
        if (command.get(0).equals("watch") && !option.equals("--file")) {
          continue; // watch follows pool files only
        }
        String[] args = new String[command.size() + 2];
        for (int i = 0; i < command.size(); i++) {
          args[i] = command.get(i);
        }
        args[command.size()] = option;
        args[command.size() + 1] = file.toString();

        CliRun run = CliRun.of(args); // fails the property on an exception

        InputKind kind = InputKind.of(input, Math.min(input.length, InputKind.HEAD_BYTES));
        boolean refusable =
            option.equals("--file") ? kind.notAPool() != null : kind.notAHostExport() != null;
        if (run.exit() == 3) {
          // only what is not the kind of input given is refused, in one line
          assertThat(refusable).as("%s refused %s", command, kind).isTrue();
          assertThat(run.err().lines()).as("%s", command).hasSize(1);
        } else {
          assertThat(run.exit()).as("%s", command).isIn(0, 1);
          assertThat(refusable).as("%s read %s", command, kind).isFalse();
        }
      }
    } finally {
      Files.deleteIfExists(file);
    }
  }
}
