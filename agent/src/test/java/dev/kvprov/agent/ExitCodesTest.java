package dev.kvprov.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.agent.provision.ProvisioningRun;
import dev.kvprov.otel.ProvisioningStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** kvprov's exit statuses are defined once: every help footer and docs/commands.md agree. */
class ExitCodesTest {
  @Test
  void everyCommandsHelp_saysItsStatusesFromTheOneDefinition() {
    Map<String, CommandLine> commands = new LinkedHashMap<>();
    Deque<CommandLine> todo = new ArrayDeque<>();
    todo.add(KvprovCommand.commandLine());
    while (!todo.isEmpty()) {
      CommandLine command = todo.poll();
      commands.put(KvprovCommand.name(command), command);
      todo.addAll(command.getSubcommands().values());
    }
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
      assertThat(help).as(e.getKey()).contains(" 2 ").containsOnlyOnce("Exit status:");
      // a paragraph of its own: one blank line before and after, never two
      assertThat(e.getValue().getUsageMessage())
          .as(e.getKey())
          .contains("\n\nExit status:")
          .doesNotContain("\n\n\n");
    }
  }

  @Test
  void provisionsHelp_saysEveryCodeARunEndsWith() {
    String help = KvprovCommand.commandLine().getSubcommands().get("provision").getUsageMessage();

    for (ProvisioningRun.Exit run : ProvisioningRun.Exit.values()) {
      assertThat(ExitCode.of(run).code).isEqualTo(run.code);
      assertThat(ExitCode.of("provision")).containsKey(ExitCode.of(run));
    }
    assertThat(help.replace("\n", " ").replaceAll(" +", " "))
        .contains("17 SSH keys;", "30 an internal error");
  }

  @Test
  void noVerdict_isSaidOnceForBothStatusCommands() {
    assertThat(ExitCode.NO_VERDICT.code).isEqualTo(ProvisioningStatus.NO_VERDICT);
    assertThat(ExitCode.of("status").get(ExitCode.NO_VERDICT))
        .isEqualTo(
            ProvisioningStatus.NO_VERDICT_MEANING
                + " ("
                + ProvisioningStatus.NO_VERDICT_WHEN
                + ")");
  }

  @Test
  void theDocsTable_hasEveryStatus_inTheSameWords() throws Exception {
    String docs = Files.readString(Path.of("../docs/commands.md"));
    int start = docs.indexOf("## Exit codes");
    String table = docs.substring(start, docs.indexOf("\n## ", start + 3));
    Matcher rows = Pattern.compile("(?m)^\\| (\\d+) \\| ([^|]+) \\|$").matcher(table);
    Map<Integer, String> documented = new TreeMap<>();
    while (rows.find()) {
      documented.put(Integer.parseInt(rows.group(1)), rows.group(2));
    }

    assertThat(documented.keySet())
        .containsExactlyElementsOf(Arrays.stream(ExitCode.values()).map(c -> c.code).toList());
    for (ExitCode code : ExitCode.values()) {
      assertThat(documented.get(code.code)).as("status %d", code.code).startsWith(code.meaning);
    }
  }
}
