package dev.kvprov.agent.net;

import dev.kvprov.agent.os.SystemRoot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Links, addresses and the default routes as the kernel shows them in files: {@code
 * /sys/class/net}, {@code /proc/net/route}, {@code /proc/net/fib_trie}, {@code /proc/net/if_inet6}
 * and {@code /proc/net/ipv6_route}, read under the root. Files rather than netlink (out of Java's
 * reach without JNA) or {@code ip -j} (a process to start on a boot that is already failing, and
 * iproute2 is not in every image): the same reading serves a VM and a test's or the demo's root.
 */
final class ProcNet {
  static final int MAX_LINKS = 16;

  /** Entries of /sys/class/net looked at, at most: more than any VM has, container hosts too. */
  static final int MAX_LISTED = 4096;

  static final int MAX_ADDRESSES = 16;

  private final SystemRoot root;
  private final List<Route> routes;

  /** One row of {@code /proc/net/route}, its numbers in the kernel's byte order. */
  private record Route(String link, int destination, int gateway, int mask, long metric) {}

  /** {@code RTF_REJECT}: the kernel's own unreachable {@code ::/0} on {@code lo} is not a route. */
  private static final long RTF_REJECT = 0x0200;

  ProcNet(SystemRoot root) {
    this.root = root;
    this.routes = routes(root);
  }

  /**
   * The links but {@code lo}: first those that are a device (a NIC, its {@code device} link there),
   * then the virtual ones (bridges, veth, tunnels), each by name — on a container host hundreds of
   * {@code veth…} or {@code cali…} would otherwise leave {@code eth0} out: {@code eth0 up
   * 00:0d:3a:…}.
   */
  List<NetworkSnapshot.Link> links() {
    Optional<Path> dir = BoundedText.resolve(root, "/sys/class/net").filter(Files::isDirectory);
    if (dir.isEmpty()) {
      return List.of();
    }
    List<String> names;
    try (Stream<Path> entries = Files.list(dir.get())) {
      names =
          entries
              .limit(MAX_LISTED)
              .map(p -> p.getFileName().toString())
              .filter(n -> !n.equals("lo"))
              .toList();
    } catch (IOException | UncheckedIOException | SecurityException e) {
      return List.of();
    }
    List<NetworkSnapshot.Link> links = new ArrayList<>();
    names.stream()
        .sorted(Comparator.comparing((String n) -> !isDevice(n)).thenComparing(n -> n))
        .limit(MAX_LINKS)
        .forEach(
            name -> {
              String base = "/sys/class/net/" + name + "/";
              links.add(
                  new NetworkSnapshot.Link(
                      BoundedText.cap(name),
                      BoundedText.firstLine(root, base + "operstate").orElse("unknown"),
                      BoundedText.firstLine(root, base + "address").orElse("none")));
            });
    return links;
  }

  /** Whether the link is a device's (sysfs gives those, and only those, a {@code device}). */
  private boolean isDevice(String name) {
    return BoundedText.resolve(root, "/sys/class/net/" + name + "/device")
        .map(Files::exists)
        .orElse(false);
  }

  /**
   * The addresses but loopback's: IPv4 from the local table of {@code fib_trie}, its link the one
   * whose connected route holds it; IPv6 from {@code if_inet6}.
   */
  List<NetworkSnapshot.Address> addresses() {
    List<NetworkSnapshot.Address> out = new ArrayList<>();
    for (String address : localIpv4(root)) {
      int value = ipv4Value(address);
      Optional<Route> connected =
          routes.stream()
              .filter(r -> r.gateway() == 0 && r.mask() != 0)
              .filter(r -> (value & r.mask()) == r.destination())
              .findFirst();
      out.add(
          new NetworkSnapshot.Address(
              connected.map(Route::link).orElse("?"),
              address + connected.map(r -> "/" + Integer.bitCount(r.mask())).orElse("")));
    }
    BoundedText.read(root, "/proc/net/if_inet6")
        .ifPresent(
            text ->
                text.lines()
                    .map(l -> l.trim().split("\\s+"))
                    .filter(f -> f.length >= 6 && f[0].length() == 32 && !f[5].equals("lo"))
                    .forEach(
                        f ->
                            ipv6(f[0])
                                .ifPresent(
                                    a ->
                                        out.add(
                                            new NetworkSnapshot.Address(
                                                BoundedText.cap(f[5]),
                                                a + "/" + prefixLength(f[2]))))));
    return out.size() > MAX_ADDRESSES ? List.copyOf(out.subList(0, MAX_ADDRESSES)) : out;
  }

  /**
   * {@code via <gateway> dev <link>}: the IPv4 default route the kernel uses (the lowest metric),
   * if there is one; {@code dev <link>} alone when it has no gateway.
   */
  Optional<String> defaultRoute() {
    return routes.stream()
        .filter(r -> r.destination() == 0 && r.mask() == 0)
        .min(Comparator.comparingLong(Route::metric))
        .map(r -> (r.gateway() == 0 ? "" : "via " + ipv4(r.gateway()) + " ") + "dev " + r.link());
  }

  /**
   * {@code via <next hop> dev <link>}: the IPv6 default route ({@code ::/0}) of {@code
   * /proc/net/ipv6_route} the kernel uses (the lowest metric), if there is one. Its rows are all
   * hex: destination, its prefix length, source, its prefix length, next hop, metric, reference
   * count, use, flags, device.
   */
  Optional<String> defaultRoute6() {
    Optional<String> text = BoundedText.read(root, "/proc/net/ipv6_route");
    if (text.isEmpty()) {
      return Optional.empty();
    }
    String best = null;
    long bestMetric = Long.MAX_VALUE;
    for (String line : text.get().lines().toList()) {
      String[] f = line.trim().split("\\s+");
      if (f.length < 10 || !f[0].equals(ANY6) || !f[1].equals("00") || f[9].equals("lo")) {
        continue;
      }
      long metric;
      long flags;
      try {
        metric = Long.parseLong(f[5], 16);
        flags = Long.parseLong(f[8], 16);
      } catch (NumberFormatException e) {
        continue; // not a route row
      }
      Optional<String> hop = f[4].length() == 32 ? ipv6(f[4]) : Optional.empty();
      if ((flags & RTF_REJECT) != 0 || hop.isEmpty() || metric >= bestMetric) {
        continue;
      }
      bestMetric = metric;
      best = (f[4].equals(ANY6) ? "" : "via " + hop.get() + " ") + "dev " + BoundedText.cap(f[9]);
    }
    return Optional.ofNullable(best);
  }

  /** {@code ::} as ipv6_route writes it. */
  private static final String ANY6 = "0".repeat(32);

  private static List<Route> routes(SystemRoot root) {
    List<Route> routes = new ArrayList<>();
    BoundedText.read(root, "/proc/net/route")
        .ifPresent(
            text ->
                text.lines()
                    .skip(1) // the header
                    .map(l -> l.trim().split("\\s+"))
                    .filter(f -> f.length >= 8)
                    .forEach(
                        f -> {
                          try {
                            routes.add(
                                new Route(
                                    BoundedText.cap(f[0]),
                                    hex(f[1]),
                                    hex(f[2]),
                                    hex(f[7]),
                                    Long.parseLong(f[6])));
                          } catch (NumberFormatException e) {
                            // not a route row: skipped
                          }
                        }));
    return routes;
  }

  /**
   * The host addresses of fib_trie's tables: an address line followed by {@code /32 host LOCAL}.
   */
  private static Set<String> localIpv4(SystemRoot root) {
    Set<String> out = new LinkedHashSet<>();
    Optional<String> text = BoundedText.read(root, "/proc/net/fib_trie");
    if (text.isEmpty()) {
      return out;
    }
    String last = null;
    for (String line : text.get().lines().toList()) {
      String l = line.strip();
      if (l.startsWith("|-- ")) {
        last = l.substring(4).strip();
      } else if (l.startsWith("/32 host LOCAL") && last != null) {
        if (!last.startsWith("127.") && isIpv4(last) && out.size() < MAX_ADDRESSES) {
          out.add(last);
        }
      }
    }
    return out;
  }

  private static boolean isIpv4(String s) {
    return s.matches("\\d{1,3}(\\.\\d{1,3}){3}");
  }

  /**
   * The 32 bits of /proc/net/route's hex, which holds them in the kernel's (little-endian) order.
   */
  private static int hex(String s) {
    return (int) Long.parseLong(s, 16);
  }

  /** Dotted text of a value in /proc/net/route's order: the first octet in the low byte. */
  static String ipv4(int v) {
    return (v & 0xff) + "." + (v >>> 8 & 0xff) + "." + (v >>> 16 & 0xff) + "." + (v >>> 24);
  }

  /** The inverse of {@link #ipv4(int)}. */
  private static int ipv4Value(String dotted) {
    String[] p = dotted.split("\\.");
    int v = 0;
    for (int i = 3; i >= 0; i--) {
      v = v << 8 | Integer.parseInt(p[i]) & 0xff;
    }
    return v;
  }

  private static int prefixLength(String hex) {
    try {
      return Integer.parseInt(hex, 16);
    } catch (NumberFormatException e) {
      return 128;
    }
  }

  /**
   * 32 hex digits as RFC 5952 text: groups without leading zeros, the longest zero run {@code ::}.
   */
  static Optional<String> ipv6(String hex) {
    int[] groups = new int[8];
    try {
      for (int i = 0; i < 8; i++) {
        groups[i] = Integer.parseInt(hex.substring(i * 4, i * 4 + 4), 16);
      }
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
    int bestStart = -1;
    int bestLength = 1; // a single zero group is written as 0
    for (int i = 0; i < 8; ) {
      int j = i;
      while (j < 8 && groups[j] == 0) {
        j++;
      }
      if (j - i > bestLength) {
        bestStart = i;
        bestLength = j - i;
      }
      i = j == i ? i + 1 : j;
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        out.append("::");
        i += bestLength - 1;
        continue;
      }
      if (out.length() > 0 && out.charAt(out.length() - 1) != ':') {
        out.append(':');
      }
      out.append(Integer.toHexString(groups[i]));
    }
    return Optional.of(out.toString());
  }
}
