package dev.kvprov.agent.provision;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvprov.agent.sim.SimulatedNics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The NICs of a {@code /sys/class/net} laid out as real files, changed as the platform does. */
class SysfsLinksTest {
  private static final Duration SHORT = Duration.ofMillis(150);
  private static final Duration LONG = Duration.ofSeconds(30);

  @TempDir Path dir;
  private Path classNet;

  @BeforeEach
  void setUp() throws IOException {
    classNet = Files.createDirectories(dir.resolve("sys/class/net"));
    SimulatedNics.loopback(classNet);
    SimulatedNics.plug(classNet, "eth0", 2);
  }

  @Test
  void aNicReplacedUnderTheSameNameBetweenPolls_isSeenToGo_andTheNewOneToCome() throws Exception {
    SysfsLinks links = SysfsLinks.watch(classNet);
    SimulatedNics.unplug(classNet, "eth0");
    SimulatedNics.plug(classNet, "eth0", 3);

    assertThat(links.detached(SHORT)).contains(new LinkEvents.Link("eth0", 2));
    assertThat(links.attached(SHORT)).contains(new LinkEvents.Link("eth0", 3));
  }

  @Test
  void theNicsThereWhenTheWatchBegan_areNeverTakenForANewOne() throws Exception {
    SysfsLinks links = SysfsLinks.watch(classNet);

    assertThat(links.detached(SHORT)).isEmpty();
    assertThat(links.attached(SHORT)).isEmpty();
  }

  @Test
  void linksWithoutADevice_loopbackOrVirtual_neitherGoNorCome() throws Exception {
    Path bridge = Files.createDirectories(classNet.resolve("docker0"));
    Files.writeString(bridge.resolve("ifindex"), "4\n");
    Files.writeString(bridge.resolve("operstate"), "up\n");
    SysfsLinks links = SysfsLinks.watch(classNet);

    Files.delete(bridge.resolve("ifindex"));
    Files.delete(bridge.resolve("operstate"));
    Files.delete(bridge);
    Path veth = Files.createDirectories(classNet.resolve("veth1"));
    Files.writeString(veth.resolve("ifindex"), "5\n");
    Files.writeString(veth.resolve("operstate"), "up\n");

    assertThat(links.detached(SHORT)).isEmpty();
    assertThat(links.attached(SHORT)).isEmpty();
  }

  @Test
  void aNewNicCounts_onlyOnceItIsUp() throws Exception {
    SysfsLinks links = SysfsLinks.watch(classNet);
    SimulatedNics.plug(classNet, "eth1", 3);
    Files.writeString(classNet.resolve("eth1/operstate"), "down\n");

    assertThat(links.attached(SHORT)).isEmpty();

    CompletableFuture<Void> up =
        CompletableFuture.runAsync(
            () -> {
              try {
                Thread.sleep(200);
                Files.writeString(classNet.resolve("eth1/operstate"), "up\n");
              } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    assertThat(links.attached(LONG)).contains(new LinkEvents.Link("eth1", 3));
    up.get(5, TimeUnit.SECONDS);
  }

  @Test
  void aNicWhoseDriverKeepsNoOperstate_isUp_whenUpWithACarrier() throws Exception {
    SysfsLinks links = SysfsLinks.watch(classNet);
    SimulatedNics.plug(classNet, "eth1", 3);
    Path eth1 = classNet.resolve("eth1");
    Files.writeString(eth1.resolve("operstate"), "unknown\n");
    Files.writeString(eth1.resolve("flags"), "0x1002\n"); // IFF_UP not set: carrier unreadable

    assertThat(links.attached(SHORT)).isEmpty();

    Files.writeString(eth1.resolve("flags"), "0x1003\n");
    Files.writeString(eth1.resolve("carrier"), "0\n");
    assertThat(links.attached(SHORT)).isEmpty();

    Files.writeString(eth1.resolve("carrier"), "1\n");
    assertThat(links.attached(SHORT)).contains(new LinkEvents.Link("eth1", 3));
  }

  @Test
  void noNicToWatch_isSaid() throws Exception {
    SimulatedNics.unplug(classNet, "eth0");

    assertThatThrownBy(() -> SysfsLinks.watch(classNet))
        .isInstanceOf(IOException.class)
        .hasMessage("no NIC is there");
  }
}
