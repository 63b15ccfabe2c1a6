package dev.kvprov.agent.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;

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

  /** The demo VM's one NIC, with a MAC in Microsoft's range as Azure gives them. */
  static final String MAC = "00:0d:3a:5e:21:07";

  /** {@code ::} as /proc/net/ipv6_route writes it. */
  private static final String ANY6 = "0".repeat(32);

  private static final String ROUTE_HEADER =
      "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n";

  /**
   * The network files a failure's snapshot reads, under {@code root} (never the host's): {@code
   * /sys/class/net}, {@code /proc/net}, resolv.conf and a lease. Up: eth0 with 10.0.0.4/24, the
   * default routes (IPv6's through Azure's gateway fe80::1234:5678:9abc), Azure's DNS and a fresh
   * networkd lease. Down: eth0 down, no address, no route, systemd-resolved's stub with no upstream
   * server, and only the dhclient lease the image was captured with, three days old.
   */
  public static void network(Path root, boolean up) throws IOException {
    Path eth0 = Files.createDirectories(root.resolve("sys/class/net/eth0"));
    Files.writeString(eth0.resolve("operstate"), up ? "up\n" : "down\n");
    Files.writeString(eth0.resolve("address"), MAC + "\n");
    Path net = Files.createDirectories(root.resolve("proc/net"));
    Files.writeString(
        net.resolve("route"),
        ROUTE_HEADER
            + (up
                ? "eth0\t00000000\t0100000A\t0003\t0\t0\t100\t00000000\t0\t0\t0\n"
                    + "eth0\t0000000A\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0\n"
                : ""));
    Files.writeString(
        net.resolve("fib_trie"),
        "Local:\n  +-- 0.0.0.0/0 3 0 5\n"
            + (up ? "     |-- 10.0.0.4\n        /32 host LOCAL\n" : "")
            + "     |-- 127.0.0.1\n        /32 host LOCAL\n");
    Files.writeString(
        net.resolve("if_inet6"),
        "00000000000000000000000000000001 01 80 10 80       lo\n"
            + (up ? "fe80000000000000020d3afffe5e2107 02 40 20 80     eth0\n" : ""));
    // the kernel's own unreachable ::/0 on lo is always there; up, the router's advertisement
    // gives eth0 the default route through Azure's gateway
    Files.writeString(
        net.resolve("ipv6_route"),
        (up
                ? "fe800000000000000000000000000000 40 "
                    + ANY6
                    + " 00 "
                    + ANY6
                    + " 00000100 00000001 00000000 00000001     eth0\n"
                    + ANY6
                    + " 00 "
                    + ANY6
                    + " 00 fe800000000000000000123456789abc"
                    + " 00000400 00000001 00000000 00450003     eth0\n"
                : "")
            + "00000000000000000000000000000001 80 "
            + ANY6
            + " 00 "
            + ANY6
            + " 00000000 00000002 00000000 80200001       lo\n"
            + ANY6
            + " 00 "
            + ANY6
            + " 00 "
            + ANY6
            + " ffffffff 00000001 00000000 00200200       lo\n");
    Files.createDirectories(root.resolve("etc"));
    Files.writeString(root.resolve("etc/resolv.conf"), "nameserver 127.0.0.53\noptions edns0\n");
    Path resolved = Files.createDirectories(root.resolve("run/systemd/resolve"));
    Files.writeString(
        resolved.resolve("resolv.conf"),
        up
            ? "nameserver 168.63.129.16\nsearch internal.cloudapp.net\n"
            : "# No DNS servers known.\n");
    if (up) {
      Path leases = Files.createDirectories(root.resolve("run/systemd/netif/leases"));
      Files.writeString(
          leases.resolve("2"),
          "# This is private data. Do not parse.\nADDRESS=10.0.0.4\nNETMASK=255.255.255.0\n"
              + "ROUTER=10.0.0.1\nSERVER_ADDRESS=168.63.129.16\nDNS=168.63.129.16\n");
    } else {
      Path dhcp = Files.createDirectories(root.resolve("var/lib/dhcp"));
      Path lease = dhcp.resolve("dhclient.eth0.leases");
      Files.writeString(
          lease,
          "lease {\n  interface \"eth0\";\n  fixed-address 10.1.0.9;\n"
              + "  option dhcp-server-identifier 168.63.129.16;\n}\n");
      Files.setLastModifiedTime(lease, FileTime.from(Instant.now().minus(Duration.ofDays(3))));
    }
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
