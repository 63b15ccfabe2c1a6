package dev.kvprov.agent.provision;

import dev.kvprov.agent.provision.LinkEvents.Link;
import java.net.NetworkInterface;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * Swaps a NIC in a network namespace of its own, as the platform does a Savable VM's, and prints
 * what {@link NetlinkLinks} heard — meant to run only under {@code unshare --net} with a fresh
 * {@code /sys} (see {@link NetlinkLinksTest}). Links made with {@code ip link add} have no bus
 * {@code device}, so those named {@code d…} count as NICs here.
 *
 * <p>Usage: {@code NetlinkLinksMain TYPE}, {@code TYPE} a link type this kernel can make ({@code
 * dummy}, or {@code ifb} where there is no dummy driver).
 */
public final class NetlinkLinksMain {
  private static final Duration NONE_YET = Duration.ofMillis(300);
  private static final Duration AT_MOST = Duration.ofSeconds(30);

  private NetlinkLinksMain() {}

  public static void main(String[] args) throws Exception {
    String type = args[0];
    ip("link", "add", "d0", "type", type);
    ip("link", "set", "d0", "up");
    long pool = NetworkInterface.getByName("d0").getIndex();
    System.out.println("pool=" + pool);
    try (NetlinkLinks links =
        NetlinkLinks.watch(
            Map.of(pool, new Link("d0", pool)),
            Path.of("/sys/class/net"),
            name -> name.startsWith("d"))) {
      System.out.println("before=" + links.detached(NONE_YET) + " " + links.attached(NONE_YET));
      ip("link", "add", "d1", "type", type); // new, but never up: not the customer's NIC
      ip("link", "del", "d0");
      System.out.println("detached=" + links.detached(AT_MOST).map(Link::toString).orElse("none"));
      ip("link", "add", "d0", "type", type); // the same name again, a new index
      ip("link", "set", "d0", "up");
      System.out.println("attached=" + links.attached(AT_MOST).map(Link::toString).orElse("none"));
      System.out.println("new=" + NetworkInterface.getByName("d0").getIndex());
    }
  }

  private static void ip(String... args) throws Exception {
    String[] argv = new String[args.length + 1];
    argv[0] = "ip";
    System.arraycopy(args, 0, argv, 1, args.length);
    Process p = new ProcessBuilder(argv).inheritIO().start();
    if (p.waitFor() != 0) {
      throw new IllegalStateException("ip " + String.join(" ", args) + " failed");
    }
  }
}
