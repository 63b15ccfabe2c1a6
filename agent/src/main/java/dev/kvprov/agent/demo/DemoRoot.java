package dev.kvprov.agent.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * A minimal root filesystem — passwd, group, shadow, gshadow, sudoers.d, sshd_config — enough for
 * shadow-utils with {@code --prefix}, {@code visudo} and {@code sshd -t}: what the demo and the
 * tests provision.
 */
public final class DemoRoot {
  private DemoRoot() {}

  public static Path create(Path dir, boolean sshdIncludesDropIns) throws IOException {
    Files.createDirectories(dir.resolve("etc/sudoers.d"));
    Files.createDirectories(dir.resolve("etc/ssh/sshd_config.d"));
    Files.createDirectories(dir.resolve("home"));
    // The image's login shell: a placeholder is enough for useradd to choose it.
    Files.createDirectories(dir.resolve("bin"));
    Path bash = dir.resolve("bin/bash");
    if (!Files.exists(bash)) {
      Files.writeString(bash, "#!/bin/sh\n# placeholder for the demo root's login shell\n");
      Files.setPosixFilePermissions(bash, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
    Files.writeString(
        dir.resolve("etc/passwd"),
        "root:x:0:0:root:/root:/bin/bash\nsshd:x:101:65534::/run/sshd:/usr/sbin/nologin\n");
    Files.writeString(
        dir.resolve("etc/group"),
        "root:x:0:\nadm:x:4:\nsudo:x:27:\nusers:x:100:\nnogroup:x:65534:\n");
    Files.writeString(
        dir.resolve("etc/shadow"), "root:*:19000:0:99999:7:::\nsshd:*:19000:0:99999:7:::\n");
    Files.writeString(
        dir.resolve("etc/gshadow"), "root:*::\nadm:*::\nsudo:*::\nusers:*::\nnogroup:*::\n");
    Files.setPosixFilePermissions(
        dir.resolve("etc/shadow"), PosixFilePermissions.fromString("rw-r-----"));
    Files.setPosixFilePermissions(
        dir.resolve("etc/gshadow"), PosixFilePermissions.fromString("rw-r-----"));
    Files.writeString(
        dir.resolve("etc/ssh/sshd_config"),
        (sshdIncludesDropIns ? "Include /etc/ssh/sshd_config.d/*.conf\n\n" : "")
            + "#PasswordAuthentication yes\nKbdInteractiveAuthentication no\nUsePAM yes\n"
            + "Subsystem sftp /usr/lib/openssh/sftp-server\n");
    return dir;
  }

  /**
   * A stand-in {@code azure-proxy-agent} in {@code dir}'s {@code /usr/bin}: a real program that
   * answers {@code --status} as the real one does once its proxy is set up (exit 0), after a
   * moment.
   */
  public static Path guestProxyAgent(Path dir) throws IOException {
    Path program = Files.createDirectories(dir.resolve("usr/bin")).resolve("azure-proxy-agent");
    Files.writeString(
        program,
        "#!/bin/sh\n# kvprov demo's stand-in for the Guest Proxy Agent\n"
            + "[ \"$1\" = --status ] || exit 2\nsleep 1\necho 'proxy agent ready'\nexit 0\n");
    Files.setPosixFilePermissions(program, PosixFilePermissions.fromString("rwxr-xr-x"));
    return program;
  }
}
