package dev.kvprov.agent.os;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Paths of an image resolved as the image sees them: no link leads out of it. */
class SystemRootTest {
  @TempDir Path dir;

  /** A proc whose PID 1 has {@code root} for its root, as the kernel's magic link shows it. */
  private Path proc(Path pid1Root) throws Exception {
    Path proc = Files.createDirectories(dir.resolve("proc"));
    Files.createDirectories(proc.resolve("self"));
    Files.createDirectories(proc.resolve("1"));
    Files.createSymbolicLink(proc.resolve("1/root"), pid1Root);
    return proc;
  }

  @Test
  void slash_isAChroot_whenPid1SeesAnotherRoot() throws Exception {
    Path proc = proc(Files.createDirectories(dir.resolve("host-root")));

    assertThat(SystemRoot.live().chroot(proc))
        .hasValue("this is a chroot (/ is not the root of PID 1)");
  }

  @Test
  void slash_isTheRunningSystem_whenPid1SeesTheSameRoot() throws Exception {
    assertThat(SystemRoot.live().chroot(proc(Path.of("/")))).isEmpty();
  }

  @Test
  void slash_isTakenForAChroot_whenProcIsNotMounted() {
    assertThat(SystemRoot.live().chroot(dir.resolve("empty-proc")))
        .hasValueSatisfying(why -> assertThat(why).contains("is not mounted"));
  }

  @Test
  void anImageRoot_isNeverAChroot() throws Exception {
    Path proc = proc(Files.createDirectories(dir.resolve("host-root")));

    assertThat(new SystemRoot(dir).chroot(proc)).isEmpty();
  }

  @Test
  void anAbsoluteLink_pointsIntoTheImage_notToThisMachine() throws Exception {
    Path image = Files.createDirectories(dir.resolve("image"));
    Files.createDirectories(image.resolve("etc"));
    Files.createSymbolicLink(image.resolve("etc/ssh"), Path.of("/usr/share/ssh-config"));
    SystemRoot root = new SystemRoot(image);

    assertThat(root.resolve("/etc/ssh/sshd_config"))
        .isEqualTo(image.resolve("usr/share/ssh-config/sshd_config"));
  }

  @Test
  void dotDot_inAPathOrALink_stopsAtTheRoot() throws Exception {
    Path image = Files.createDirectories(dir.resolve("image"));
    Files.createDirectories(image.resolve("home"));
    Files.createSymbolicLink(image.resolve("home/alice"), Path.of("../../../../outside"));
    SystemRoot root = new SystemRoot(image);

    assertThat(root.resolve("/../../etc/passwd")).isEqualTo(image.resolve("etc/passwd"));
    assertThat(root.resolve("/home/alice/.ssh")).isEqualTo(image.resolve("outside/.ssh"));
  }

  @Test
  void aLoopOfLinks_isAnError_notAHang() throws Exception {
    Path image = Files.createDirectories(dir.resolve("image"));
    Files.createSymbolicLink(image.resolve("a"), Path.of("/b"));
    Files.createSymbolicLink(image.resolve("b"), Path.of("/a"));
    SystemRoot root = new SystemRoot(image);

    assertThatThrownBy(() -> root.resolve("/a/file"))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageContaining("too many levels of symbolic links");
  }

  @Test
  void aToolWithPrefix_isKeptFromLinksOutOfTheImage() throws Exception {
    Path image = Files.createDirectories(dir.resolve("image"));
    Path outside = Files.createDirectories(dir.resolve("outside"));
    Files.createSymbolicLink(image.resolve("home"), outside);
    Files.createDirectories(image.resolve("etc"));
    SystemRoot root = new SystemRoot(image);

    root.requireNoWayOut("/etc/passwd");
    assertThatThrownBy(() -> root.requireNoWayOut("/home/azureuser"))
        .hasMessage(
            "/home in "
                + image
                + " leads out of it (to "
                + outside.toRealPath()
                + "): refusing to let a tool write there");
  }

  @Test
  void theLiveRoot_resolvesAsThisMachineDoes() {
    assertThat(SystemRoot.live().resolve("/etc/passwd")).isEqualTo(Path.of("/etc/passwd"));
  }
}
