package dev.kvprov.agent.provision;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.agent.sim.SimulatedNics;
import dev.kvprov.fixtures.HostTools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kernel's real announcements: a NIC removed and another brought up in a network namespace of
 * the test's own ({@code unshare --net}, no privilege needed), heard through {@link NetlinkLinks};
 * and a JVM that cannot open it, which polls {@code /sys/class/net} instead.
 */
class NetlinkLinksTest {
  @TempDir Path dir;

  @Test
  void aNicSwappedInANetworkNamespace_isHeardToGo_andItsSuccessorToComeUp() throws Exception {
    List<String> lines = inANetworkNamespace();

    String pool = value(lines, "pool=");
    String successor = value(lines, "new=");
    assertThat(successor).isNotEqualTo(pool);
    assertThat(lines)
        .contains(
            "before=Optional.empty Optional.empty",
            "detached=d0 (index " + pool + ")",
            "attached=d0 (index " + successor + ")");
  }

  @Test
  void thePoolNicGoingWhileAnnouncementsAreDropped_isFoundInSys_andTheNextNicHeard()
      throws Exception {
    List<String> lines = inANetworkNamespace("overrun");

    String pool = value(lines, "pool=");
    String successor = value(lines, "new=");
    assertThat(lines)
        .contains("detached=d0 (index " + pool + ")", "attached=d0 (index " + successor + ")");
  }

  /**
   * Runs {@link NetlinkLinksMain} in a network namespace of its own, with the link type this kernel
   * can make; its output's lines. Skipped where there is none.
   */
  private static List<String> inANetworkNamespace(String... mode) throws Exception {
    HostTools.assumeInstalled("ip", "iproute2");
    HostTools.assumeInstalled("unshare", "util-linux");
    Optional<String> type = linkType();
    Assumptions.assumeTrue(
        type.isPresent(),
        "this kernel gives no private network namespace with a dummy or ifb link; skipped");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command =
        new ArrayList<>(
            List.of(
                "unshare",
                "--map-root-user",
                "--net",
                "--mount",
                "sh",
                "-c",
                // /sys as this namespace sees it: its links, read after an overrun
                "mount -t sysfs sysfs /sys && cp=$1 && shift && exec \"$0\" -cp \"$cp\" "
                    + NetlinkLinksMain.class.getName()
                    + " \"$@\"",
                java,
                System.getProperty("java.class.path")));
    command.addAll(List.of(mode));
    command.add(type.get());
    Process run = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(run.getInputStream().readAllBytes(), UTF_8);
    assertThat(run.waitFor()).as(output).isZero();
    return output.lines().toList();
  }

  @Test
  void whereNetlinkCannotBeOpened_theVmPollsSysfs_afterOneWarning() throws Exception {
    Path classNet = Files.createDirectories(dir.resolve("sys/class/net"));
    SimulatedNics.loopback(classNet);
    SimulatedNics.plug(classNet, "eth0", 2);
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process run =
        new ProcessBuilder(
                java,
                // JNA's native part nowhere to be found: no native call can be made
                "-Djna.boot.library.path=" + dir.resolve("nowhere"),
                "-Djna.nosys=true",
                "-Djna.nounpack=true",
                "-cp",
                System.getProperty("java.class.path"),
                NetlinkLinksMain.class.getName(),
                "fallback",
                classNet.toString())
            .redirectErrorStream(true)
            .start();
    String output = new String(run.getInputStream().readAllBytes(), UTF_8);
    assertThat(run.waitFor()).as(output).isZero();

    assertThat(output.lines())
        .containsExactly(
            "warning: netlink cannot be opened (native calls are not available here): watching"
                + " /sys/class/net every 50 ms instead",
            "watching=SysfsLinks");
  }

  private static String value(List<String> lines, String key) {
    return lines.stream()
        .filter(l -> l.startsWith(key))
        .map(l -> l.substring(key.length()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + key + " in " + lines));
  }

  /** A link type a private network namespace can make here: dummy, else ifb; none without one. */
  private static Optional<String> linkType() throws InterruptedException {
    for (String type : List.of("dummy", "ifb")) {
      try {
        Process probe =
            new ProcessBuilder(
                    "unshare", "--map-root-user", "--net", "ip", "link", "add", "d0", "type", type)
                .redirectErrorStream(true)
                .start();
        probe.getInputStream().readAllBytes();
        if (probe.waitFor() == 0) {
          return Optional.of(type);
        }
      } catch (java.io.IOException noUnshareOrIp) {
        return Optional.empty();
      }
    }
    return Optional.empty();
  }
}
