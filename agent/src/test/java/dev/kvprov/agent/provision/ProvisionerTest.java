package dev.kvprov.agent.provision;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvprov.agent.demo.DemoRoot;
import dev.kvprov.agent.os.CommandResult;
import dev.kvprov.agent.os.CommandRunner;
import dev.kvprov.agent.os.ProcessCommandRunner;
import dev.kvprov.agent.os.SystemRoot;
import dev.kvprov.agent.ovf.OvfEnvironment;
import dev.kvprov.agent.ovf.OvfParser;
import dev.kvprov.agent.ovf.Secret;
import dev.kvprov.agent.provision.steps.ProvisioningException;
import dev.kvprov.agent.provision.steps.SshKey;
import dev.kvprov.agent.provision.steps.Step;
import dev.kvprov.fixtures.Fixtures;
import dev.kvprov.fixtures.HostTools;
import io.opentelemetry.api.OpenTelemetry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real useradd and usermod with --prefix on a throwaway root, real files, real visudo and sshd. */
class ProvisionerTest {
  static final String KEY =
      "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJWinwTTXHx4k8EYR2dTCWR804bXaMPytqRjud+bfvbj azureuser@workstation";
  static final String KEY2 =
      "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEm1t3stk3yb1t5f0rt35t1ngOnLyN0tR3alXYz1 ci@deploy";

  @TempDir Path dir;
  private final List<List<String>> commands = new ArrayList<>();
  private final CommandRunner recording =
      new CommandRunner() {
        private final ProcessCommandRunner real =
            new ProcessCommandRunner(OpenTelemetry.noop().getTracer("t"));

        @Override
        public CommandResult run(List<String> argv, byte[] stdin, Duration timeout)
            throws IOException, InterruptedException {
          commands.add(argv);
          return real.run(argv, stdin, timeout);
        }
      };

  private Secret canaryPassword() throws Exception {
    OvfEnvironment env =
        OvfParser.parse(new java.io.ByteArrayInputStream(Fixtures.bytes(Fixtures.OVF_ENV)));
    return env.password().orElseThrow();
  }

  private Provisioner.Builder provisioner(Path root) {
    return Provisioner.builder(new SystemRoot(root), recording, OpenTelemetry.noop().getTracer("t"))
        .hostname("web-01")
        .user("azureuser")
        .sshKeys(
            List.of(
                new SshKey(KEY, Optional.of("/home/azureuser/.ssh/authorized_keys")),
                new SshKey(KEY2, Optional.empty())));
  }

  private static String line(Path file, String prefix) throws IOException {
    return Files.readAllLines(file).stream()
        .filter(l -> l.startsWith(prefix))
        .findFirst()
        .orElse("");
  }

  @Test
  void aFreshRoot_getsHostUserPasswordSudoersSshdAndKeys() throws Exception {
    HostTools.assumeInstalled("visudo", "sudo");
    HostTools.assumeInstalled("sshd", "openssh-server");
    Path root = DemoRoot.create(dir.resolve("root"), true);
    Secret password = canaryPassword();

    provisioner(root)
        .password(Optional.of(password))
        .passwordAuthentication(true)
        .build()
        .provision();

    assertThat(Files.readString(root.resolve("etc/hostname"))).isEqualTo("web-01\n");
    String passwd = line(root.resolve("etc/passwd"), "azureuser:");
    assertThat(passwd).matches("azureuser:x:\\d+:\\d+::/home/azureuser:/bin/bash");
    assertThat(line(root.resolve("etc/group"), "sudo:")).isEqualTo("sudo:x:27:azureuser");
    assertThat(line(root.resolve("etc/group"), "adm:")).isEqualTo("adm:x:4:azureuser");
    String shadow = Files.readString(root.resolve("etc/shadow"));
    assertThat(line(root.resolve("etc/shadow"), "azureuser:")).startsWith("azureuser:$6$");
    assertThat(shadow).doesNotContain("never-log-me");
    Path sudoers = root.resolve("etc/sudoers.d/90-kvprov-azureuser");
    assertThat(Files.readString(sudoers)).isEqualTo("azureuser ALL=(ALL) ALL\n");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(sudoers)))
        .isEqualTo("r--r-----");
    assertThat(Files.readString(root.resolve("etc/ssh/sshd_config.d/00-kvprov.conf")))
        .isEqualTo("PasswordAuthentication yes\nKbdInteractiveAuthentication yes\n");
    Path keys = root.resolve("home/azureuser/.ssh/authorized_keys");
    assertThat(Files.readAllLines(keys)).containsExactly(KEY, KEY2);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(keys)))
        .isEqualTo("rw-------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(keys.getParent())))
        .isEqualTo("rwx------");
    int uid = Integer.parseInt(passwd.split(":")[2]);
    assertThat(Files.getAttribute(keys, "unix:uid")).isEqualTo(uid);
    assertThat(Files.getAttribute(keys.getParent(), "unix:uid")).isEqualTo(uid);
    // The password never reached a command line: only its hash did.
    assertThat(commands)
        .allSatisfy(argv -> assertThat(String.join(" ", argv)).doesNotContain("never-log-me"));
    assertThat(commands).extracting(c -> c.get(0)).contains("useradd", "visudo", "sshd");
    assertThat(commands)
        .allSatisfy(argv -> assertThat(String.join(" ", argv)).doesNotContain("$6$"));
  }

  @Test
  void aSecondRun_changesNothingOnDisk() throws Exception {
    Path root = DemoRoot.create(dir.resolve("root"), true);
    provisioner(root).password(Optional.of(canaryPassword())).build().provision();
    Map<Path, String> before = snapshot(root);

    provisioner(root).password(Optional.of(canaryPassword())).build().provision();

    assertThat(snapshot(root)).isEqualTo(before);
  }

  @Test
  void onlyTheSshKeysStep_changesNothingButTheKeys() throws Exception {
    Path root = DemoRoot.create(dir.resolve("root"), true);
    provisioner(root).sshKeys(List.of()).build().provision();
    Map<Path, String> before = snapshot(root);
    commands.clear();

    provisioner(root).build().provision(java.util.EnumSet.of(Step.SSH_KEYS));

    Map<Path, String> after = snapshot(root);
    Path keys = Path.of("home/azureuser/.ssh/authorized_keys");
    assertThat(after.keySet()).containsAll(before.keySet());
    assertThat(after.keySet().stream().filter(p -> !before.containsKey(p))).containsExactly(keys);
    after.remove(keys);
    assertThat(after).isEqualTo(before);
    assertThat(commands).isEmpty();
  }

  @Test
  void sudoersAlone_forAUserThatIsNotThere_fails_writingNothing() throws Exception {
    Path root = DemoRoot.create(dir.resolve("root"), true);

    assertThatThrownBy(
            () ->
                provisioner(root)
                    .user("nosuchuser")
                    .build()
                    .provision(java.util.EnumSet.of(Step.SUDOERS)))
        .isInstanceOf(ProvisioningException.class)
        .hasMessage("no passwd entry for nosuchuser: the user step makes it");
    assertThat(root.resolve("etc/sudoers.d/90-kvprov-nosuchuser")).doesNotExist();
  }

  @Test
  void anImmutableImage_getsItsKeysAsAFragment_andItsOwnDropInName() throws Exception {
    Path root = DemoRoot.create(dir.resolve("root"), true);

    provisioner(root)
        .authorizedKeysDirectory(".ssh/authorized_keys.d")
        .sshdDropIn("80-kvprov.conf")
        .build()
        .provision();

    Path fragment = root.resolve("home/azureuser/.ssh/authorized_keys.d/kvprov");
    // The platform names the usual file for every key (as IMDS does): with fragments, that is
    // the fragment.
    assertThat(Files.readAllLines(fragment)).containsExactly(KEY, KEY2);
    assertThat(root.resolve("home/azureuser/.ssh/authorized_keys")).doesNotExist();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(fragment.getParent())))
        .isEqualTo("rwx------");
    assertThat(root.resolve("etc/ssh/sshd_config.d/80-kvprov.conf"))
        .hasContent("PasswordAuthentication no\nKbdInteractiveAuthentication no");
    assertThat(root.resolve("etc/ssh/sshd_config.d/00-kvprov.conf")).doesNotExist();

    // A key the platform wants somewhere else of the home still goes there.
    provisioner(root)
        .authorizedKeysDirectory(".ssh/authorized_keys.d")
        .sshKeys(List.of(new SshKey(KEY2, Optional.of("/home/azureuser/.ssh/deploy_keys"))))
        .build()
        .provision(java.util.EnumSet.of(Step.SSH_KEYS));
    assertThat(Files.readAllLines(root.resolve("home/azureuser/.ssh/deploy_keys")))
        .containsExactly(KEY2);
  }

  @Test
  void nothingIsWrittenUnderUsr_evenForAUserWhoseHomeIsThere() throws Exception {
    Path root = DemoRoot.create(dir.resolve("root"), true);
    for (String[] entry :
        new String[][] {
          {"etc/passwd", "svcadmin:x:1500:1500::/usr/lib/svcadmin:/bin/sh"},
          {"etc/shadow", "svcadmin:!:20000:0:99999:7:::"},
          {"etc/group", "svcadmin:x:1500:"},
          {"etc/gshadow", "svcadmin:!::"}
        }) {
      Files.writeString(
          root.resolve(entry[0]), entry[1] + "\n", java.nio.file.StandardOpenOption.APPEND);
    }
    Map<Path, String> before = snapshot(root);

    assertThatThrownBy(
            () ->
                provisioner(root)
                    .user("svcadmin")
                    .sshKeys(List.of(new SshKey(KEY, Optional.empty())))
                    .build()
                    .provision(java.util.EnumSet.of(Step.USER, Step.SSH_KEYS)))
        .isInstanceOf(ProvisioningException.class)
        .hasMessage("refusing to write /usr/lib/svcadmin: nothing is written under /usr")
        .satisfies(e -> assertThat(((ProvisioningException) e).step()).isEqualTo(Step.USER));
    assertThatThrownBy(
            () ->
                provisioner(root)
                    .user("svcadmin")
                    .sshKeys(List.of(new SshKey(KEY, Optional.empty())))
                    .build()
                    .provision(java.util.EnumSet.of(Step.SSH_KEYS)))
        .isInstanceOf(ProvisioningException.class)
        .hasMessageContaining("nothing is written under /usr");
    assertThat(root.resolve("usr/lib/svcadmin")).doesNotExist();
    Map<Path, String> after = snapshot(root);
    after.remove(Path.of("etc/.pwd.lock")); // the account files' lock, taken to check them
    assertThat(after).isEqualTo(before);
  }

  @Test
  void anSshdConfigLinkedToUsrsDefault_becomesTheAdministratorsCopy_andUsrIsUntouched()
      throws Exception {
    Path root = DemoRoot.create(dir.resolve("root"), false);
    Path shipped = Files.createDirectories(root.resolve("usr/share/ssh")).resolve("sshd_config");
    String defaults = "UsePAM yes\nSubsystem sftp internal-sftp\n";
    Files.writeString(shipped, defaults);
    Path config = root.resolve("etc/ssh/sshd_config");
    Files.delete(config);
    Files.createSymbolicLink(config, Path.of("../../usr/share/ssh/sshd_config"));

    provisioner(root).build().provision(java.util.EnumSet.of(Step.SSHD));

    assertThat(Files.isSymbolicLink(config)).isFalse();
    assertThat(config)
        .hasContent(
            "UsePAM yes\nSubsystem sftp internal-sftp\nPasswordAuthentication no\n"
                + "KbdInteractiveAuthentication no");
    assertThat(shipped).hasContent(defaults.strip());
  }

  @Test
  void aDirectoryLinkedIntoUsr_isRefused() throws Exception {
    Path root = DemoRoot.create(dir.resolve("root"), true);
    Path shipped = Files.createDirectories(root.resolve("usr/lib/sudoers.d"));
    Path dropIns = root.resolve("etc/sudoers.d");
    if (Files.exists(dropIns)) {
      try (Stream<Path> files = Files.list(dropIns)) {
        for (Path f : files.toList()) {
          Files.delete(f);
        }
      }
      Files.delete(dropIns);
    }
    Files.createSymbolicLink(dropIns, Path.of("../usr/lib/sudoers.d"));

    assertThatThrownBy(
            () ->
                provisioner(root).build().provision(java.util.EnumSet.of(Step.USER, Step.SUDOERS)))
        .isInstanceOf(ProvisioningException.class)
        .hasMessageStartingWith("refusing to write /usr/lib/sudoers.d/")
        .satisfies(e -> assertThat(((ProvisioningException) e).step()).isEqualTo(Step.SUDOERS));
    try (Stream<Path> files = Files.list(shipped)) {
      assertThat(files).isEmpty();
    }
  }

  private static Map<Path, String> snapshot(Path root) throws IOException {
    Map<Path, String> files = new HashMap<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.filter(Files::isRegularFile).toList()) {
        FileTime modified = Files.getLastModifiedTime(p);
        files.put(
            root.relativize(p),
            Files.readString(p)
                + "@"
                + modified
                + " "
                + PosixFilePermissions.toString(Files.getPosixFilePermissions(p))
                + " "
                + Files.getAttribute(p, "unix:uid")
                + ":"
                + Files.getAttribute(p, "unix:gid"));
      }
    }
    return files;
  }

  @Test
  void withoutAPassword_theAccountIsLocked_sudoNeedsNoPassword_andSshdRefusesPasswords()
      throws Exception {
    Path root = DemoRoot.create(dir.resolve("root"), true);

    provisioner(root).passwordAuthentication(false).build().provision();

    assertThat(line(root.resolve("etc/shadow"), "azureuser:")).startsWith("azureuser:!");
    assertThat(Files.readString(root.resolve("etc/sudoers.d/90-kvprov-azureuser")))
        .isEqualTo("azureuser ALL=(ALL) NOPASSWD: ALL\n");
    assertThat(Files.readString(root.resolve("etc/ssh/sshd_config.d/00-kvprov.conf")))
        .isEqualTo("PasswordAuthentication no\nKbdInteractiveAuthentication no\n");
  }

  @Test
  void anSshdConfigWithoutDropIns_isEditedOnce_leavingCommentsAlone() throws Exception {
    Path root = DemoRoot.create(dir.resolve("root"), false);
    Path config = root.resolve("etc/ssh/sshd_config");
    Files.writeString(
        config,
        Files.readString(config)
            + "PasswordAuthentication yes\nPasswordAuthentication yes\nMatch User backup\n  X11Forwarding no\n");

    provisioner(root).passwordAuthentication(false).build().provision();
    provisioner(root).passwordAuthentication(false).build().provision();

    String edited = Files.readString(config);
    assertThat(edited.lines().filter(l -> l.startsWith("PasswordAuthentication")))
        .containsExactly("PasswordAuthentication no");
    assertThat(edited)
        .contains("#PasswordAuthentication yes\n")
        .doesNotContain("#PasswordAuthentication no");
    assertThat(edited.indexOf("PasswordAuthentication no"))
        .isLessThan(edited.indexOf("Match User backup"));
    assertThat(Files.exists(root.resolve("etc/ssh/sshd_config.d/00-kvprov.conf"))).isFalse();
  }

  @Test
  void hostileNames_areRefusedWithAReason_andNothingIsWritten() throws Exception {
    Path root = DemoRoot.create(dir.resolve("root"), true);
    Map<Path, String> before = snapshot(root);
    for (String user : List.of("-oProxyCommand=x", "root", "../x", "a".repeat(300), "Admin User")) {
      assertThatThrownBy(() -> provisioner(root).hostname("ok-host").user(user).build().provision())
          .isInstanceOf(ProvisioningException.class)
          .satisfies(
              e ->
                  assertThat(((ProvisioningException) e).reason())
                      .isEqualTo("User creation failed"));
    }
    assertThatThrownBy(() -> provisioner(root).hostname("my host").build().provision())
        .isInstanceOf(ProvisioningException.class)
        .hasMessageContaining("host name 'my host' is not a valid host name")
        .satisfies(e -> assertThat(((ProvisioningException) e).step()).isEqualTo(Step.HOSTNAME));

    Map<Path, String> after = snapshot(root);
    after.keySet().removeIf(p -> p.toString().equals("etc/hostname")); // the valid host of the loop
    assertThat(after).isEqualTo(before);
    assertThat(commands).isEmpty();
  }

  @Test
  void aKeyPathOutsideTheHome_isRefused() throws Exception {
    Path root = DemoRoot.create(dir.resolve("root"), true);

    assertThatThrownBy(
            () ->
                provisioner(root)
                    .sshKeys(List.of(new SshKey(KEY, Optional.of("/root/.ssh/authorized_keys"))))
                    .build()
                    .provision())
        .isInstanceOf(ProvisioningException.class)
        .hasMessageContaining(
            "the key path /root/.ssh/authorized_keys is not inside azureuser's home")
        .satisfies(
            e ->
                assertThat(((ProvisioningException) e).reason()).isEqualTo("SSH key setup failed"));
    assertThat(Files.exists(root.resolve("root/.ssh"))).isFalse();
  }

  @Test
  void aFailingCommand_namesTheStepTheCommandItsExitAndStderr() throws Exception {
    Path root = DemoRoot.create(dir.resolve("root"), true);
    Files.delete(root.resolve("home"));
    Files.writeString(root.resolve("home"), "a file where the home directories should be\n");

    assertThatThrownBy(() -> provisioner(root).build().provision())
        .isInstanceOf(ProvisioningException.class)
        .hasMessageStartingWith("useradd failed: exit 12: useradd: cannot create directory")
        .satisfies(e -> assertThat(((ProvisioningException) e).step()).isEqualTo(Step.USER));
  }

  @Test
  void aSymlinkPlantedInTheHome_isRefused_andItsTargetUntouched() throws Exception {
    Path root = DemoRoot.create(dir.resolve("root"), true);
    provisioner(root).build().provision();
    Path outside = Files.createDirectories(dir.resolve("outside"));
    Files.setPosixFilePermissions(outside, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path ssh = root.resolve("home/azureuser/.ssh");
    try (Stream<Path> files = Files.list(ssh)) {
      for (Path f : files.toList()) {
        Files.delete(f);
      }
    }
    Files.delete(ssh);
    Files.createSymbolicLink(ssh, outside);

    assertThatThrownBy(() -> provisioner(root).build().provision())
        .isInstanceOf(ProvisioningException.class)
        .hasMessageContaining("is a symbolic link; refusing to write through it");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(outside)))
        .isEqualTo("rwxr-xr-x");
    assertThat(Files.getAttribute(outside, "unix:uid")).isEqualTo(0);
    try (Stream<Path> files = Files.list(outside)) {
      assertThat(files).isEmpty();
    }
  }

  @Test
  void anAuthorizedKeysFileThatIsALink_isRefused_andItsTargetIsNotCopied() throws Exception {
    Path root = DemoRoot.create(dir.resolve("root"), true);
    provisioner(root).build().provision();
    Path secret = dir.resolve("shadow-like");
    Files.writeString(secret, "root:$6$SECRETHASH:1::::::\n");
    Path keys = root.resolve("home/azureuser/.ssh/authorized_keys");
    Files.delete(keys);
    Files.createSymbolicLink(keys, secret);

    assertThatThrownBy(() -> provisioner(root).build().provision())
        .isInstanceOf(ProvisioningException.class)
        .hasMessageContaining("symbolic link");
    assertThat(Files.isSymbolicLink(keys)).isTrue();
    assertThat(Files.readString(secret)).isEqualTo("root:$6$SECRETHASH:1::::::\n");
  }

  @Test
  void anExistingSystemAccount_isNotMadeTheAdmin() throws Exception {
    Path root = DemoRoot.create(dir.resolve("root"), true);
    Files.writeString(
        root.resolve("etc/passwd"),
        Files.readString(root.resolve("etc/passwd"))
            + "postgres:x:110:118::/var/lib/postgresql:/bin/bash\n");

    assertThatThrownBy(() -> provisioner(root).user("postgres").build().provision())
        .isInstanceOf(ProvisioningException.class)
        .hasMessage("user name 'postgres' is an existing system account (uid 110)");
    assertThat(Files.exists(root.resolve("etc/sudoers.d/90-kvprov-postgres"))).isFalse();
  }

  @Test
  void usersThatDifferByADotOrAnUnderscore_getSudoersFilesOfTheirOwn() throws Exception {
    Path root = DemoRoot.create(dir.resolve("root"), true);
    provisioner(root).user("a.b").sshKeys(List.of()).build().provision();
    provisioner(root).user("a_b").sshKeys(List.of()).build().provision();

    assertThat(Files.readString(root.resolve("etc/sudoers.d/90-kvprov-a_db"))).startsWith("a.b ");
    assertThat(Files.readString(root.resolve("etc/sudoers.d/90-kvprov-a_ub"))).startsWith("a_b ");
  }

  @Test
  void aKeyWithALineBreak_isRefused_notAppendedOnEveryRun() throws Exception {
    Path root = DemoRoot.create(dir.resolve("root"), true);

    assertThatThrownBy(
            () ->
                provisioner(root)
                    .sshKeys(List.of(new SshKey(KEY + "\nssh-rsa AAAA injected", Optional.empty())))
                    .build()
                    .provision())
        .isInstanceOf(ProvisioningException.class)
        .hasMessageContaining("not one OpenSSH key line");
  }

  @Test
  void unusableKeys_failTheKeysStep_namingEach_afterTheUsableOnesAreInstalled() throws Exception {
    Path root = DemoRoot.create(dir.resolve("root"), true);
    String path = "/home/azureuser/.ssh/authorized_keys";

    assertThatThrownBy(
            () ->
                provisioner(root)
                    .sshKeys(
                        List.of(
                            new SshKey(KEY, Optional.of(path)),
                            new SshKey("ssh-foo AAAAB3NzaC1yc2E", Optional.of(path)),
                            SshKey.unusable(
                                "-----BEGIN CERTIFICATE-----",
                                Optional.empty(),
                                "the x509 certificate holds an EC key")))
                    .build()
                    .provision())
        .isInstanceOf(ProvisioningException.class)
        .hasFieldOrPropertyWithValue("step", Step.SSH_KEYS)
        .hasMessage(
            "the SSH key at index 1 (path "
                + path
                + ") was not installed: not one OpenSSH key line: unknown key type 'ssh-foo';"
                + " the SSH key at index 2 (path none given) was not installed: the x509"
                + " certificate holds an EC key");
    assertThat(Files.readAllLines(root.resolve("home/azureuser/.ssh/authorized_keys")))
        .containsExactly(KEY);
  }

  @Test
  void clientAliveInterval_isWrittenBesideThePasswordSettings_whenConfigured() throws Exception {
    HostTools.assumeInstalled("sshd", "openssh-server");
    Path root = DemoRoot.create(dir.resolve("root"), true);

    provisioner(root).clientAliveInterval(180).build().provision(java.util.EnumSet.of(Step.SSHD));

    assertThat(Files.readString(root.resolve("etc/ssh/sshd_config.d/00-kvprov.conf")))
        .isEqualTo(
            "PasswordAuthentication no\nKbdInteractiveAuthentication no\nClientAliveInterval 180\n");
    // The installed sshd reads it back as set.
    assertThat(commands).anySatisfy(argv -> assertThat(argv).startsWith("sshd", "-t"));
  }

  @Test
  void theOldNameOfKeyboardInteractive_inTheMainFile_givesWayToTheSetting() throws Exception {
    // sshd keeps the first of the two names it reads: the old one must not outrank ours.
    Path root = DemoRoot.create(dir.resolve("root"), false);
    Path config = root.resolve("etc/ssh/sshd_config");
    Files.writeString(
        config,
        "ChallengeResponseAuthentication no\nUsePAM yes\nKbdInteractiveAuthentication no\n");

    provisioner(root)
        .passwordAuthentication(true)
        .build()
        .provision(java.util.EnumSet.of(Step.SSHD));

    assertThat(Files.readAllLines(config))
        .containsExactly(
            "KbdInteractiveAuthentication yes", "UsePAM yes", "PasswordAuthentication yes");
  }

  @Test
  void aBrokenSshdConfig_isNeverWritten_andNeverPassesOnALaterRun() throws Exception {
    HostTools.assumeSshdChecks();
    Path root = DemoRoot.create(dir.resolve("root"), false);
    Path config = root.resolve("etc/ssh/sshd_config");
    String broken = Files.readString(config) + "BogusDirective yes\n";
    Files.writeString(config, broken);

    for (int run = 0; run < 2; run++) {
      assertThatThrownBy(() -> provisioner(root).build().provision())
          .isInstanceOf(ProvisioningException.class)
          .satisfies(e -> assertThat(((ProvisioningException) e).step()).isEqualTo(Step.SSHD));
      assertThat(Files.readString(config)).isEqualTo(broken);
    }
  }
}
