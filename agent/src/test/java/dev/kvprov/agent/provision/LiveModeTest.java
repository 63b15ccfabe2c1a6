package dev.kvprov.agent.provision;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.fixtures.Fixtures;
import dev.kvprov.fixtures.HostTools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The live mode — root {@code /}: the kernel host name, sshd's own checks and key lookup — run for
 * real, but in a private mount and UTS namespace whose {@code /etc} and {@code /home} are scratch
 * copies, so this machine's users, host name and sshd stay as they are.
 */
class LiveModeTest {
  @TempDir Path scratch;

  @Test
  void provisioningTheLiveRoot_worksOnTheRealTools_insideANamespace() throws Exception {
    Assumptions.assumeTrue(
        Files.readString(Path.of("/proc/self/status"))
            .lines()
            .anyMatch(l -> l.matches("Uid:\\s+0\\s.*")),
        "needs root for a private mount namespace");
    // With systemd running, hostnamectl would talk to the real hostnamed: not here.
    Assumptions.assumeFalse(
        Files.isDirectory(Path.of("/run/systemd/system")), "systemd is running");
    HostTools.assumeInstalled("visudo", "sudo");
    HostTools.assumeInstalled("sshd", "openssh-server");
    String realHostname = Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
    String realPasswd = Files.readString(Path.of("/etc/passwd"));
    Process copy =
        new ProcessBuilder("cp", "-a", "/etc", scratch.resolve("etc").toString())
            .inheritIO()
            .start();
    assertThat(copy.waitFor()).isZero();
    Files.createDirectories(scratch.resolve("home"));
    Path ovf = Fixtures.path(Fixtures.OVF_ENV);
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String script =
        // a fresh /run, as at first boot: no /run/sshd until ssh.service starts, after kvprov
        "mount --bind \"$1/etc\" /etc && mount --bind \"$1/home\" /home"
            + " && mount -t tmpfs tmpfs /run && exec \"$2\" -cp \"$3\" "
            + LiveProvisionMain.class.getName()
            + " \"$4\"";

    Process run =
        new ProcessBuilder(
                "unshare",
                "--mount",
                "--uts",
                "--propagation",
                "private",
                "--fork",
                "sh",
                "-c",
                script,
                "sh",
                scratch.toString(),
                java,
                System.getProperty("java.class.path"),
                ovf.toString())
            .redirectErrorStream(true)
            .start();
    String output = new String(run.getInputStream().readAllBytes(), UTF_8);
    assertThat(run.waitFor()).as(output).isZero();

    assertThat(output).contains("done").doesNotContain("never-log-me");
    List<String> commands = output.lines().filter(l -> l.startsWith("command: ")).toList();
    assertThat(commands)
        .contains("command: hostname live-test", "command: chpasswd -e")
        .anyMatch(c -> c.startsWith("command: useradd -m -d /home/liveuser"))
        .anyMatch(c -> c.startsWith("command: sshd -t -f /etc/ssh/sshd_config.d/.kvprov-candidate"))
        .anyMatch(c -> c.startsWith("command: sshd -T -C user=liveuser,host=live-test"));
    List<String> lines = output.lines().toList();
    int check =
        lines.indexOf(
            lines.stream()
                .filter(l -> l.startsWith("command: sshd -t -f "))
                .findFirst()
                .orElseThrow());
    assertThat(lines.get(check + 1))
        .as("sshd -t really checked, /run/sshd made as ssh.service would")
        .isEqualTo("exit: 0");
    assertThat(commands)
        .anyMatch(c -> c.startsWith("command: sshd -T -C user=liveuser,host=live-test"))
        .noneMatch(c -> c.contains("$6$"));
    assertThat(Files.readString(scratch.resolve("etc/shadow"))).containsPattern("liveuser:\\$6\\$");
    Path etc = scratch.resolve("etc");
    assertThat(Files.readString(etc.resolve("passwd"))).contains("liveuser:x:");
    assertThat(Files.readString(etc.resolve("hostname"))).isEqualTo("live-test\n");
    assertThat(Files.readString(etc.resolve("sudoers.d/90-kvprov-liveuser")))
        .isEqualTo("liveuser ALL=(ALL) ALL\n");
    assertThat(Files.readString(etc.resolve("ssh/sshd_config.d/00-kvprov.conf")))
        .isEqualTo("PasswordAuthentication no\nKbdInteractiveAuthentication no\n");
    assertThat(Files.readAllLines(scratch.resolve("home/liveuser/.ssh/authorized_keys")))
        .containsExactly(ProvisionerTest.KEY);
    // ...and this machine is untouched.
    assertThat(Files.readString(Path.of("/proc/sys/kernel/hostname")).strip())
        .isEqualTo(realHostname);
    assertThat(Files.readString(Path.of("/etc/passwd"))).isEqualTo(realPasswd);
  }
}
