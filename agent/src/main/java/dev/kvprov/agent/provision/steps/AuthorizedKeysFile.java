package dev.kvprov.agent.provision.steps;

import dev.kvprov.agent.os.CommandResult;
import dev.kvprov.agent.os.CommandRunner;
import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * Where sshd looks for a user's keys, asked of sshd itself ({@code sshd -T -C user=…}), so that an
 * image whose sshd_config moves {@code AuthorizedKeysFile} gets its keys where sshd will read them.
 */
final class AuthorizedKeysFile {
  private AuthorizedKeysFile() {}

  /**
   * The {@code AuthorizedKeysFile} entries for {@code user}, as sshd resolves its config; empty
   * when sshd cannot say.
   */
  static List<String> query(CommandRunner runner, String user, String host)
      throws InterruptedException {
    try {
      CommandResult result =
          runner.run(
              List.of("sshd", "-T", "-C", "user=" + user + ",host=" + host + ",addr=127.0.0.1"),
              Duration.ofSeconds(30));
      if (!result.succeeded()) {
        return List.of();
      }
      return result
          .stdout()
          .lines()
          .filter(l -> l.toLowerCase(java.util.Locale.ROOT).startsWith("authorizedkeysfile "))
          .flatMap(l -> Arrays.stream(l.substring("authorizedkeysfile ".length()).split("\\s+")))
          .filter(p -> !p.isEmpty() && !p.equalsIgnoreCase("none"))
          .toList();
    } catch (IOException e) {
      return List.of();
    }
  }
}
