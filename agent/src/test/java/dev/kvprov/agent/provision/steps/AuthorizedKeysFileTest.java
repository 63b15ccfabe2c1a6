package dev.kvprov.agent.provision.steps;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.agent.os.CommandResult;
import dev.kvprov.agent.os.CommandRunner;
import dev.kvprov.agent.os.ProcessCommandRunner;
import io.opentelemetry.api.OpenTelemetry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class AuthorizedKeysFileTest {
  @Test
  void theRealSshd_saysWhereItReadsKeys() throws Exception {
    // Read-only: sshd -T only prints the configuration this machine's sshd would use.
    Assumptions.assumeTrue(
        Files.isExecutable(Path.of("/usr/sbin/sshd")), "sshd is installed by .ci/run");
    Assumptions.assumeTrue(
        Files.isDirectory(Path.of("/run/sshd")), "sshd -T needs /run/sshd (.ci/run makes it)");

    assertThat(
            AuthorizedKeysFile.query(
                new ProcessCommandRunner(OpenTelemetry.noop().getTracer("t")),
                "azureuser",
                "web-01"))
        .contains(".ssh/authorized_keys");
  }

  @Test
  void aFailingOrSilentSshd_givesNothing_soTheConfiguredFileIsUsed() throws Exception {
    CommandRunner failing =
        (argv, stdin, timeout) ->
            new CommandResult(255, "", "Missing privilege separation directory", Duration.ZERO);
    CommandRunner moved =
        (argv, stdin, timeout) ->
            new CommandResult(
                0,
                "port 22\nauthorizedkeysfile /etc/ssh/keys/%u .ssh/authorized_keys\n",
                "",
                Duration.ZERO);

    assertThat(AuthorizedKeysFile.query(failing, "u", "h")).isEmpty();
    assertThat(AuthorizedKeysFile.query(moved, "u", "h"))
        .containsExactly("/etc/ssh/keys/%u", ".ssh/authorized_keys");
  }
}
