package dev.kvprov.agent.net;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.agent.demo.DemoRoot;
import dev.kvprov.agent.os.SystemRoot;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The snapshot read from real files in a temporary root, never the host's. */
class NetworkSnapshotTest {
  @TempDir Path root;

  private static final Instant NOW = Instant.parse("2026-11-28T00:00:00Z");

  private NetworkSnapshot read() {
    return NetworkSnapshot.read(new SystemRoot(root), "answered", "connects", NOW);
  }

  @Test
  void aHealthyRoot_givesLinkAddressesRouteDnsAndLease() throws Exception {
    DemoRoot.network(root, true);
    Path lease = root.resolve("run/systemd/netif/leases/2");
    Files.setLastModifiedTime(lease, FileTime.from(NOW.minusSeconds(42)));

    NetworkSnapshot snapshot = read();

    assertThat(snapshot.links())
        .containsExactly(new NetworkSnapshot.Link("eth0", "up", "00:0d:3a:5e:21:07"));
    assertThat(snapshot.addresses())
        .containsExactly(
            new NetworkSnapshot.Address("eth0", "10.0.0.4/24"),
            new NetworkSnapshot.Address("eth0", "fe80::20d:3aff:fe5e:2107/64"));
    assertThat(snapshot.defaultRoute()).contains("via 10.0.0.1 dev eth0");
    assertThat(snapshot.defaultRoute6()).contains("via fe80::1234:5678:9abc dev eth0");
    assertThat(snapshot.dns()).containsExactly("127.0.0.53", "168.63.129.16");
    assertThat(snapshot.lease())
        .contains(
            new NetworkSnapshot.Lease(
                "/run/systemd/netif/leases/2", Optional.of("168.63.129.16"), 42));
    assertThat(snapshot.summary())
        .isEqualTo(
            "links eth0 up 00:0d:3a:5e:21:07; addresses eth0 10.0.0.4/24, eth0"
                + " fe80::20d:3aff:fe5e:2107/64; route via 10.0.0.1 dev eth0, ::/0 via"
                + " fe80::1234:5678:9abc dev eth0; dns 127.0.0.53,"
                + " 168.63.129.16; lease 168.63.129.16, 42 s old; imds answered; wireserver"
                + " connects");
  }

  @Test
  void aLinkDown_showsNoAddressNoRouteAndTheOldDhclientLease() throws Exception {
    DemoRoot.network(root, false);
    Path lease = root.resolve("var/lib/dhcp/dhclient.eth0.leases");
    Files.setLastModifiedTime(lease, FileTime.from(NOW.minus(Duration.ofDays(3))));

    NetworkSnapshot snapshot = read();

    assertThat(snapshot.links())
        .containsExactly(new NetworkSnapshot.Link("eth0", "down", "00:0d:3a:5e:21:07"));
    assertThat(snapshot.addresses()).isEmpty(); // loopback's are left out
    assertThat(snapshot.defaultRoute()).isEmpty();
    assertThat(snapshot.defaultRoute6()).isEmpty(); // the kernel's unreachable ::/0 on lo is none
    assertThat(snapshot.dns()).containsExactly("127.0.0.53");
    assertThat(snapshot.lease().orElseThrow().server()).contains("168.63.129.16");
    assertThat(snapshot.lease().orElseThrow().ageSeconds()).isEqualTo(3 * 86400);
    assertThat(snapshot.summary())
        .startsWith(
            "links eth0 down 00:0d:3a:5e:21:07; addresses none; route none; dns 127.0.0.53;"
                + " lease 168.63.129.16, 3 d old;");
  }

  @Test
  void anEmptyRoot_givesNothing_andSaysSo() {
    NetworkSnapshot snapshot =
        NetworkSnapshot.read(new SystemRoot(root), "not asked", "refused", NOW);

    assertThat(snapshot.summary())
        .isEqualTo(
            "links none; addresses none; route none; dns none; lease none; imds not asked;"
                + " wireserver refused");
  }

  @Test
  void theNewestLease_wins_andDhclientsLastServerIsTheOne() throws Exception {
    Path dhcp = Files.createDirectories(root.resolve("var/lib/dhcp"));
    Files.writeString(
        dhcp.resolve("dhclient.leases"),
        "lease {\n  option dhcp-server-identifier 10.9.9.9;\n}\n"
            + "lease {\n  option dhcp-server-identifier 168.63.129.16;\n}\n");
    Files.setLastModifiedTime(dhcp.resolve("dhclient.leases"), FileTime.from(NOW.minusSeconds(10)));
    Path nm = Files.createDirectories(root.resolve("var/lib/NetworkManager"));
    Files.writeString(nm.resolve("internal-1234-eth0.lease"), "SERVER_ADDRESS=10.1.1.1\n");
    Files.setLastModifiedTime(
        nm.resolve("internal-1234-eth0.lease"), FileTime.from(NOW.minusSeconds(500)));
    Files.writeString(nm.resolve("NetworkManager.state"), "SERVER_ADDRESS=6.6.6.6\n"); // no lease

    NetworkSnapshot.Lease lease = read().lease().orElseThrow();

    assertThat(lease.file()).isEqualTo("/var/lib/dhcp/dhclient.leases");
    assertThat(lease.server()).contains("168.63.129.16");
    assertThat(lease.ageSeconds()).isEqualTo(10);
  }

  @Test
  void linksAreCapped_andLongOrControlValuesCut() throws Exception {
    for (int i = 0; i < 20; i++) {
      Path link = Files.createDirectories(root.resolve("sys/class/net/eth" + (char) ('a' + i)));
      Files.writeString(link.resolve("operstate"), "x".repeat(500) + "\n");
      Files.writeString(link.resolve("address"), "aa:\u0007bb\n");
    }

    List<NetworkSnapshot.Link> links = read().links();

    assertThat(links).hasSize(ProcNet.MAX_LINKS);
    assertThat(links.get(0).name()).isEqualTo("etha");
    assertThat(links.get(0).state()).hasSize(BoundedText.MAX_VALUE + 1).endsWith("…");
    assertThat(links.get(0).mac()).isEqualTo("aa:?bb");
    assertThat(read().summary()).contains(" +13;");
  }

  @Test
  void anImagesAbsoluteLink_isFollowedInsideTheRoot() throws Exception {
    // /sys/class/net/eth0 is a link to /sys/devices/...: in an image it must point into the image
    Path device = Files.createDirectories(root.resolve("sys/devices/vmbus/net/eth0"));
    Files.writeString(device.resolve("operstate"), "dormant\n");
    Files.writeString(device.resolve("address"), "00:0d:3a:00:00:01\n");
    Files.createDirectories(root.resolve("sys/class/net"));
    Files.createSymbolicLink(
        root.resolve("sys/class/net/eth0"), Path.of("/sys/devices/vmbus/net/eth0"));

    assertThat(read().links())
        .containsExactly(new NetworkSnapshot.Link("eth0", "dormant", "00:0d:3a:00:00:01"));
  }

  @Test
  void theIpv6DefaultRoute_isTheLowestMetricsNotRejectedOne_besideIpv4s() throws Exception {
    Path net = Files.createDirectories(root.resolve("proc/net"));
    String any = "0".repeat(32);
    Files.writeString(
        net.resolve("ipv6_route"),
        // a prefix route, a worse default on eth1, the best on eth0, one rejected, lo's, a bad row
        "20010db8000000000000000000000000 40 "
            + any
            + " 00 "
            + any
            + " 00000100 00000001 00000000 00000001     eth0\n"
            + any
            + " 00 "
            + any
            + " 00 fe800000000000000000000000000002 00000800 00000001 00000000 00000003     eth1\n"
            + any
            + " 00 "
            + any
            + " 00 fe800000000000000000123456789abc 00000400 00000001 00000000 00450003     eth0\n"
            + any
            + " 00 "
            + any
            + " 00 fe800000000000000000000000000003 00000001 00000001 00000000 00000203     eth2\n"
            + any
            + " 00 "
            + any
            + " 00 "
            + any
            + " ffffffff 00000001 00000000 00200200       lo\n"
            + any
            + " 00 "
            + any
            + " 00 fe80zz00000000000000000000000000 00000001 00000001 00000000 00000003     eth3\n");

    NetworkSnapshot snapshot = read();

    assertThat(snapshot.defaultRoute()).isEmpty();
    assertThat(snapshot.defaultRoute6()).contains("via fe80::1234:5678:9abc dev eth0");
    assertThat(snapshot.summary()).contains("; route ::/0 via fe80::1234:5678:9abc dev eth0;");
  }

  @Test
  void aDefaultRouteWithoutGateway_namesItsLinkAlone() throws Exception {
    Path net = Files.createDirectories(root.resolve("proc/net"));
    String any = "0".repeat(32);
    Files.writeString(
        net.resolve("route"),
        "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
            + "eth1\t00000000\t0101A8C0\t0003\t0\t0\t200\t00000000\t0\t0\t0\n"
            + "wg0\t00000000\t00000000\t0001\t0\t0\t50\t00000000\t0\t0\t0\n");
    Files.writeString(
        net.resolve("ipv6_route"),
        any + " 00 " + any + " 00 " + any + " 00000400 00000001 00000000 00000001      wg0\n");

    assertThat(read().summary()).contains("; route dev wg0, ::/0 dev wg0;");
  }

  @Test
  void loopsOfLinksInTheImage_readAsNothing_andTheRestIsStillRead() throws Exception {
    DemoRoot.network(root, true);
    // each a link to itself, as the image sees it: following them never ends
    Files.createSymbolicLink(root.resolve("sys/class/net/eth1"), Path.of("/sys/class/net/eth1"));
    Files.delete(root.resolve("etc/resolv.conf"));
    Files.createSymbolicLink(root.resolve("etc/resolv.conf"), Path.of("/etc/resolv.conf"));
    Files.createDirectories(root.resolve("var/lib"));
    Files.createSymbolicLink(root.resolve("var/lib/dhcp"), Path.of("/var/lib/dhcp"));
    Files.delete(root.resolve("proc/net/route"));
    Files.createSymbolicLink(root.resolve("proc/net/route"), Path.of("../net/route"));

    NetworkSnapshot snapshot = read();

    assertThat(snapshot.links())
        .containsExactly(
            new NetworkSnapshot.Link("eth0", "up", "00:0d:3a:5e:21:07"),
            new NetworkSnapshot.Link("eth1", "unknown", "none"));
    assertThat(snapshot.defaultRoute()).isEmpty();
    assertThat(snapshot.defaultRoute6()).contains("via fe80::1234:5678:9abc dev eth0");
    assertThat(snapshot.dns()).containsExactly("168.63.129.16");
    assertThat(snapshot.lease().orElseThrow().file()).isEqualTo("/run/systemd/netif/leases/2");
  }

  @Test
  void onAContainerHost_theNicsComeBeforeTheVirtualLinks() throws Exception {
    DemoRoot.network(root, true);
    Files.createDirectories(root.resolve("sys/devices/vmbus/6045bd5e"));
    Files.createSymbolicLink(
        root.resolve("sys/class/net/eth0/device"), Path.of("/sys/devices/vmbus/6045bd5e"));
    for (int i = 0; i < 40; i++) {
      Path veth = Files.createDirectories(root.resolve("sys/class/net/cali" + (1000 + i)));
      Files.writeString(veth.resolve("operstate"), "up\n");
      Files.writeString(veth.resolve("address"), "ee:ee:ee:ee:ee:ee\n");
    }

    List<NetworkSnapshot.Link> links = read().links();

    assertThat(links).hasSize(ProcNet.MAX_LINKS);
    assertThat(links.get(0)).isEqualTo(new NetworkSnapshot.Link("eth0", "up", "00:0d:3a:5e:21:07"));
    assertThat(links.get(1).name()).isEqualTo("cali1000");
    assertThat(read().summary()).startsWith("links eth0 up 00:0d:3a:5e:21:07, cali1000 up");
  }

  @Test
  void aDhclientLeaseFileLongerThanTheCap_givesTheServerOfItsLastLease() throws Exception {
    Path dhcp = Files.createDirectories(root.resolve("var/lib/dhcp"));
    StringBuilder leases = new StringBuilder();
    // dhclient appends each lease: years of renewals from the image's first network
    while (leases.length() < 2 * BoundedText.MAX_BYTES) {
      leases.append(
          "lease {\n  interface \"eth0\";\n  option dhcp-server-identifier 10.9.9.9;\n}\n");
    }
    leases.append(
        "lease {\n  interface \"eth0\";\n  option dhcp-server-identifier 168.63.129.16;\n}\n");
    Files.writeString(dhcp.resolve("dhclient.eth0.leases"), leases);

    assertThat(read().lease().orElseThrow().server()).contains("168.63.129.16");
  }

  @Test
  void aFileCutAtTheCap_loosesItsPartLine_ratherThanMisreadingIt() throws Exception {
    Path net = Files.createDirectories(root.resolve("proc/net"));
    String any = "0".repeat(32);
    String prefixRoute =
        "20010db8000000000000000000000000 40 "
            + any
            + " 00 "
            + any
            + " 00000100 00000001 00000000 00000001     eth0\n";
    String defaultRoute =
        any
            + " 00 "
            + any
            + " 00 fe800000000000000000123456789abc 00000400 00000001 00000000 00450003     eth0\n";
    int rows = BoundedText.MAX_BYTES / prefixRoute.length() - 1;
    // padded so that the cap falls inside the default route's device: "…     et|h0"
    int pad = BoundedText.MAX_BYTES - rows * prefixRoute.length() - (defaultRoute.length() - 3);
    Files.writeString(
        net.resolve("ipv6_route"),
        " ".repeat(pad) + prefixRoute.repeat(rows) + defaultRoute + prefixRoute);

    assertThat(read().defaultRoute6()).isEmpty();
  }

  @Test
  void ofALease_onlyItsServerAndAgeLeave_neverItsHostNameOrClientId() throws Exception {
    Path leases = Files.createDirectories(root.resolve("run/systemd/netif/leases"));
    Files.writeString(
        leases.resolve("2"),
        "ADDRESS=10.0.0.4\nSERVER_ADDRESS=168.63.129.16\nHOSTNAME=secret-host-7\n"
            + "CLIENTID=ffb3e4c1a2000200001234never-log-me\nDOMAINNAME=corp.example\n");
    Path dhcp = Files.createDirectories(root.resolve("var/lib/dhcp"));
    Files.writeString(
        dhcp.resolve("dhclient.eth0.leases"),
        "lease {\n  option host-name \"secret-host-8\";\n"
            + "  option dhcp-client-identifier 1:0:d:3a:never-log-me;\n"
            + "  option dhcp-server-identifier 168.63.129.16;\n}\n");
    Files.setLastModifiedTime(dhcp.resolve("dhclient.eth0.leases"), FileTime.from(NOW));

    for (int newest = 0; newest < 2; newest++) {
      Files.setLastModifiedTime(
          leases.resolve("2"), FileTime.from(NOW.plusSeconds(newest == 0 ? -60 : 60)));
      String everything = read().toString() + read().summary();
      assertThat(everything)
          .contains("168.63.129.16")
          .doesNotContain("secret-host", "never-log-me", "corp.example", "10.0.0.4");
    }
  }

  @Test
  void aValueIsNeverCutBetweenTheHalvesOfOneCharacter() {
    String cut = BoundedText.cap("x".repeat(BoundedText.MAX_VALUE - 1) + "\uD83D\uDE00 and more");

    assertThat(cut).isEqualTo("x".repeat(BoundedText.MAX_VALUE - 1) + "…");
    assertThat(BoundedText.cap("eth\uD83D\uDE00\u0007")).isEqualTo("eth\uD83D\uDE00?");
  }

  @Test
  void aLeasesAge_isWrittenInTheUnitThatReadsAtAGlance() {
    assertThat(NetworkSnapshot.age(119)).isEqualTo("119 s");
    assertThat(NetworkSnapshot.age(120)).isEqualTo("2 min");
    assertThat(NetworkSnapshot.age(47 * 3600 + 3599)).isEqualTo("47 h");
    assertThat(NetworkSnapshot.age(48 * 3600)).isEqualTo("2 d");
  }

  @Test
  void ipv6_isWrittenShort() {
    assertThat(ProcNet.ipv6("20010db8000000000000000000000001")).contains("2001:db8::1");
    assertThat(ProcNet.ipv6("00000000000000000000000000000000")).contains("::");
    assertThat(ProcNet.ipv6("20010db8000100000001000000000000")).contains("2001:db8:1:0:1::");
    assertThat(ProcNet.ipv6("zz010db8000100000001000000000000")).isEmpty();
  }

  @Test
  void probe_connects_orIsRefused() throws Exception {
    int port;
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = server.getLocalPort();
      assertThat(
              NetworkSnapshot.probe(URI.create("http://127.0.0.1:" + port), Duration.ofSeconds(5)))
          .isEqualTo("connects");
    }
    assertThat(NetworkSnapshot.probe(URI.create("http://127.0.0.1:" + port), Duration.ofSeconds(5)))
        .isEqualTo("refused");
  }
}
