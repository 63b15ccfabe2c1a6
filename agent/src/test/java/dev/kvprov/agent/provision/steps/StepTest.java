package dev.kvprov.agent.provision.steps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class StepTest {
  @Test
  void everyStep_hasItsOwnNameReasonAndExitCode() {
    assertThat(Arrays.stream(Step.values()).map(Step::id).distinct()).hasSize(Step.values().length);
    assertThat(Arrays.stream(Step.values()).map(Step::reason).distinct())
        .hasSize(Step.values().length);
    assertThat(Arrays.stream(Step.values()).mapToInt(Step::exitCode).distinct())
        .hasSize(Step.values().length);
    assertThat(Step.SSH_KEYS.id()).isEqualTo("ssh_keys");
    assertThat(Step.SSH_KEYS.option()).isEqualTo("ssh-keys");
    assertThat(Step.SSH_KEYS.exitCode()).isEqualTo(17);
  }

  @Test
  void stepLists_areReadWithHyphensOrUnderscores_inTheirUsualOrder() {
    assertThat(Step.parse("ssh-keys, hostname")).containsExactly(Step.HOSTNAME, Step.SSH_KEYS);
    assertThat(Step.parse("SSH_KEYS")).containsExactly(Step.SSH_KEYS);
    assertThatThrownBy(() -> Step.parse("hostname,keys"))
        .hasMessage(
            "unknown step 'keys'; the steps are hostname, user, password, sudoers, sshd, ssh-keys");
  }

  @Test
  void authorizedKeysFileTokens_areExpanded() {
    assertThat(SshKeysStep.expand("%h/.ssh/keys_%u_100%%", "/home/azureuser", "azureuser"))
        .isEqualTo("/home/azureuser/.ssh/keys_azureuser_100%");
  }

  @Test
  void theSshdEdit_leavesMatchBlocksAlone_andKnowsTheEqualsForm() {
    String config =
        "PasswordAuthentication=yes\nUsePAM yes\nMatch Address 10.0.0.0/8\n  PasswordAuthentication yes\n";

    String edited = SshdStep.withDirective(config, "PasswordAuthentication no");

    assertThat(edited)
        .isEqualTo(
            "PasswordAuthentication no\nUsePAM yes\nMatch Address 10.0.0.0/8\n  PasswordAuthentication yes\n");
    assertThat(
            SshdStep.withDirective(
                "Match User x\n  X11Forwarding no\n", "PasswordAuthentication no"))
        .isEqualTo("PasswordAuthentication no\nMatch User x\n  X11Forwarding no\n");
  }
}
