package dev.kvprov.agent.provision.steps;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.agent.os.CommandResult;
import dev.kvprov.agent.os.CommandRunner;
import dev.kvprov.agent.os.SystemRoot;
import io.opentelemetry.api.OpenTelemetry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The sshd step's reload on the running system: systemctl is faked, since the real one would reload
 * this machine's sshd. Its answers are {@code systemctl is-active}'s: a state a line, exit 0 when
 * any unit is active, 3 when none is (an unknown unit is "inactive").
 */
class SshdReloadTest {
  private final List<List<String>> commands = new ArrayList<>();

  private void reloadWith(int exit, String states) throws Exception {
    CommandRunner runner =
        (argv, stdin, timeout) -> {
          commands.add(argv);
          return argv.get(1).equals("is-active")
              ? new CommandResult(exit, states, "", Duration.ZERO)
              : new CommandResult(0, "", "", Duration.ZERO);
        };
    SshdStep.reloadRunning(
        new Machine(SystemRoot.live(), runner, OpenTelemetry.noop().getTracer("t"), Step.SSHD));
  }

  @Test
  void atFirstBoot_neitherNameRuns_oneQuestionAndNoReload() throws Exception {
    reloadWith(3, "inactive\ninactive\n");

    assertThat(commands).containsExactly(List.of("systemctl", "is-active", "ssh", "sshd"));
  }

  @Test
  void debiansSsh_isReloadedByTheNameAsked_once() throws Exception {
    // sshd.service is ssh.service's alias on Debian: both names are active
    reloadWith(0, "active\nactive\n");

    assertThat(commands)
        .containsExactly(
            List.of("systemctl", "is-active", "ssh", "sshd"),
            List.of("systemctl", "reload", "ssh"));
  }

  @Test
  void anotherDistributionsSshd_isReloaded() throws Exception {
    reloadWith(0, "inactive\nactive\n");

    assertThat(commands).last().isEqualTo(List.of("systemctl", "reload", "sshd"));
  }

  @Test
  void aSystemctlWithoutAManager_saysNothing_andNothingIsReloaded() throws Exception {
    reloadWith(1, "");

    assertThat(commands).hasSize(1);
  }
}
