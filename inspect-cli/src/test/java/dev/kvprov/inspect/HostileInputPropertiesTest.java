package dev.kvprov.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import picocli.CommandLine;

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

  @Property(tries = 150)
  void readCommands_neverThrow(@ForAll("pools") byte[] pool) throws Exception {
    everyCommandAnswers(pool, "--file");
  }

  /** Host exports made from the same pools, with characters flipped or cut short. */
  @Property(tries = 100)
  void readCommands_onHostExports_neverThrow(@ForAll("exports") String export) throws Exception {
    everyCommandAnswers(export.getBytes(java.nio.charset.StandardCharsets.UTF_8), "--host-xml");
  }

  private static void everyCommandAnswers(byte[] input, String option) throws Exception {
    Path file = Files.createTempFile("kvp-fuzz", ".kvp");
    try {
      Files.write(file, input);
      for (List<String> command : COMMANDS) {
        if (command.get(0).equals("watch") && !option.equals("--file")) {
          continue; // watch follows pool files only
        }
        Throwable[] thrown = new Throwable[1];
        String[] args = new String[command.size() + 2];
        for (int i = 0; i < command.size(); i++) {
          args[i] = command.get(i);
        }
        args[command.size()] = option;
        args[command.size() + 1] = file.toString();
        CommandLine cli = KvpCommand.commandLine(args); // as bin/kvp: only this subcommand built
        cli.setOut(new PrintWriter(new StringWriter()));
        cli.setErr(new PrintWriter(new StringWriter()));
        cli.setExecutionExceptionHandler(
            (e, line, parsed) -> {
              thrown[0] = e;
              return 99;
            });

        int exit = cli.execute(args);

        assertThat(thrown[0]).as("%s threw", command).isNull();
        assertThat(exit).as("%s", command).isIn(0, 1);
      }
    } finally {
      Files.deleteIfExists(file);
    }
  }

  @Provide
  Arbitrary<byte[]> pools() throws Exception {
    return HostilePools.pools();
  }

  @Provide
  Arbitrary<String> exports() throws Exception {
    return HostilePools.exports();
  }
}
