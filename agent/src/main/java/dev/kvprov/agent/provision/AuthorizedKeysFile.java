package dev.kvprov.agent.provision;

import dev.kvprov.agent.os.CommandResult;
import dev.kvprov.agent.os.CommandRunner;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Where sshd looks for a user's keys, asked of sshd itself ({@code sshd -T -C user=…}), so that an
 * image whose sshd_config moves {@code AuthorizedKeysFile} gets its keys where sshd will read them.
 */
final class AuthorizedKeysFile {
  private AuthorizedKeysFile() {}

  /** The first {@code AuthorizedKeysFile} entry for {@code user}, as sshd resolves its config. */
  static Optional<String> query(CommandRunner runner, String user, String host)
      throws InterruptedException {
    try {
      CommandResult result =
          runner.run(
              List.of("sshd", "-T", "-C", "user=" + user + ",host=" + host + ",addr=127.0.0.1"),
              Duration.ofSeconds(30));
      if (!result.succeeded()) {
        return Optional.empty();
      }
      return result
          .stdout()
          .lines()
          .filter(l -> l.toLowerCase(java.util.Locale.ROOT).startsWith("authorizedkeysfile "))
          .map(l -> l.substring("authorizedkeysfile ".length()).strip().split("\\s+")[0])
          .filter(p -> !p.isEmpty() && !p.equalsIgnoreCase("none"))
          .findFirst();
    } catch (IOException e) {
      return Optional.empty();
    }
  }
}
