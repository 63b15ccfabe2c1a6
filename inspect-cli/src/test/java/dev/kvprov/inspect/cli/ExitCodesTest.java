package dev.kvprov.inspect.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The exit statuses are defined once: every help footer and docs/inspect.md agree with them. */
class ExitCodesTest {
  @Test
  void everyCommandsHelp_saysItsStatusesFromTheOneDefinition() {
    CommandLine kvp = KvpCommand.commandLine();
    Map<String, CommandLine> commands = new java.util.LinkedHashMap<>(kvp.getSubcommands());
    commands.put("kvp", kvp);
    assertThat(commands.keySet()).containsAll(ExitCode.commandsWithOwnWords());
    for (Map.Entry<String, CommandLine> e : commands.entrySet()) {
      String help = e.getValue().getUsageMessage().replace("\n", " ").replaceAll(" +", " ");
      StringBuilder expected = new StringBuilder("Exit status:");
      ExitCode.of(e.getKey())
          .forEach(
              (code, words) ->
                  expected.append(' ').append(code.code).append(' ').append(words).append(';'));
      expected.setCharAt(expected.length() - 1, '.');

      assertThat(help).as(e.getKey()).contains(expected.toString().replaceAll(" +", " "));
      assertThat(help).as(e.getKey()).contains("2 usage error", "3 ");
    }
  }

  @Test
  void theDocsTable_hasEveryStatus_inTheSameWords() throws Exception {
    String docs = Files.readString(Path.of("../docs/inspect.md"));
    String table =
        docs.substring(
            docs.indexOf("## Exit codes"), docs.indexOf("## ", docs.indexOf("## Exit codes") + 3));
    Matcher rows = Pattern.compile("(?m)^\\| (\\d) \\| ([^|]+) \\|$").matcher(table);
    Map<Integer, String> documented = new java.util.TreeMap<>();
    while (rows.find()) {
      documented.put(Integer.parseInt(rows.group(1)), rows.group(2));
    }

    assertThat(documented.keySet())
        .containsExactlyElementsOf(
            java.util.Arrays.stream(ExitCode.values()).map(c -> c.code).toList());
    for (ExitCode code : ExitCode.values()) {
      if (code != ExitCode.OK && code != ExitCode.FOUND) {
        assertThat(documented.get(code.code)).as("status %d", code.code).startsWith(code.meaning);
      }
    }
  }
}
