package dev.kvprov.agent.ovf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvprov.agent.os.CommandResult;
import dev.kvprov.agent.os.CommandRunner;
import io.opentelemetry.api.OpenTelemetry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mounting is faked at the command seam (a real mount would change this machine): the fake "mounts"
 * by copying a file into the mount point, and records every command.
 */
class DeviceMediaTest {
  @TempDir Path root;
  private final List<List<String>> commands = new ArrayList<>();
  private String mediaContent;
  private int mountExit = 0;

  private final CommandRunner fake =
      new CommandRunner() {
        @Override
        public CommandResult run(List<String> argv, byte[] stdin, Duration timeout)
            throws IOException {
          commands.add(argv);
          if (argv.get(0).equals("mount")) {
            if (mountExit != 0) {
              return new CommandResult(
                  mountExit, "", "mount: /dev/sr0: no medium found.\n", Duration.ZERO);
            }
            Files.writeString(
                Path.of(argv.get(argv.size() - 1)).resolve("ovf-env.xml"), mediaContent);
          } else if (argv.get(0).equals("umount")) {
            // What unmounting does to the mount point: the media's files are gone from it.
            Files.delete(Path.of(argv.get(1)).resolve("ovf-env.xml"));
          }
          return new CommandResult(0, "", "", Duration.ZERO);
        }
      };

  @BeforeEach
  void setUp() throws Exception {
    Files.createDirectories(root.resolve("dev"));
    Files.createFile(root.resolve("dev/sr0"));
    mediaContent = OvfParserTest.fixture();
  }

  private DeviceMedia media(String... devices) {
    return new DeviceMedia(
        List.of(devices),
        root,
        root.resolve("run/kvprov"),
        fake,
        OpenTelemetry.noop().getTracer("t"));
  }

  private long mountPointsLeft() throws IOException {
    try (Stream<Path> left = Files.list(root.resolve("run/kvprov"))) {
      return left.count();
    }
  }

  @Test
  void mountsReadOnly_reads_thenUnmountsAndEjects_andLeavesNoMountPoint() throws Exception {
    OvfEnvironment env = media("/dev/sr0").read();

    assertThat(env.userName()).isEqualTo("azureuser");
    assertThat(commands).extracting(c -> c.get(0)).containsExactly("mount", "umount", "eject");
    assertThat(commands.get(0)).contains("ro,nosuid,nodev,noexec", "udf,iso9660", "/dev/sr0");
    assertThat(commands.get(2)).containsExactly("eject", "/dev/sr0");
    assertThat(mountPointsLeft()).isZero();
  }

  @Test
  void aBrokenOvfEnv_isAnError_butTheMediaIsStillUnmountedAndEjected() throws Exception {
    mediaContent = "<Environment";

    assertThatThrownBy(() -> media("/dev/sr0").read())
        .isInstanceOf(OvfException.class)
        .hasMessageContaining("not well-formed");
    assertThat(commands).extracting(c -> c.get(0)).containsExactly("mount", "umount", "eject");
    assertThat(mountPointsLeft()).isZero();
  }

  @Test
  void noMedia_saysWhatWasTried() throws Exception {
    mountExit = 32;

    assertThatThrownBy(() -> media("/dev/sr0", "/dev/sr1").read())
        .isInstanceOf(OvfException.class)
        .hasMessage(
            "no provisioning media with ovf-env.xml: tried /dev/sr0 (mount: exit 32: mount:"
                + " /dev/sr0: no medium found.), /dev/sr1 (absent)");
    assertThat(commands).extracting(c -> c.get(0)).containsExactly("mount");
    assertThat(mountPointsLeft()).isZero();
  }

  @Test
  void anAlreadyMountedMedia_isReadInPlace_withoutMountingOrEjecting() throws Exception {
    Files.createDirectories(root.resolve("proc"));
    Files.writeString(
        root.resolve("proc/mounts"),
        "sysfs /sys sysfs rw 0 0\n/dev/sr0 /media/azure\\040cd udf ro,relatime 0 0\n");
    Path mounted = Files.createDirectories(root.resolve("media/azure cd"));
    Files.writeString(mounted.resolve("ovf-env.xml"), OvfParserTest.fixture());

    OvfEnvironment env = media("/dev/sr0").read();

    assertThat(env.hostName()).isEqualTo("web-01");
    assertThat(commands).isEmpty();
  }
}
