package dev.kvprov.agent.provision;

import dev.kvprov.agent.provision.LinkEvents.Link;
import java.nio.file.Files;
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
 * dummy}, or {@code ifb} where there is no dummy driver); or {@code NetlinkLinksMain fallback
 * CLASS_NET}: watches as a VM does and prints the warning and the way it watches; or {@code
 * NetlinkLinksMain cost [warm]}: what opening the socket costs (bench/netlink-open.sh).
 */
public final class NetlinkLinksMain {
  private static final Duration NONE_YET = Duration.ofMillis(300);
  private static final Duration AT_MOST = Duration.ofSeconds(30);

  private NetlinkLinksMain() {}

  public static void main(String[] args) throws Exception {
    if (args[0].equals("fallback")) {
      LinkEvents links =
          NetlinkLinks.watchOrPoll(Path.of(args[1]), w -> System.out.println("warning: " + w));
      System.out.println("watching=" + links.getClass().getSimpleName());
      links.close();
      return;
    }
    if (args[0].equals("cost")) {
      cost(args.length > 1 && args[1].equals("warm"));
      return;
    }
    if (args[0].equals("overrun")) {
      overrun(args[1]);
      return;
    }
    String type = args[0];
    ip("link", "add", "d0", "type", type);
    ip("link", "set", "d0", "up");
    long pool = index("d0");
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
      System.out.println("new=" + index("d0"));
    }
  }

  /**
   * What opening the socket costs a Savable VM, in a fresh JVM: the first open (JNA's start unless
   * {@code warm}, the functions' binding, socket and bind), then one more.
   */
  private static void cost(boolean warm) throws Exception {
    long t0 = System.nanoTime();
    if (warm) { // as a boot where kvp's pool lock has started JNA already, as LibC does
      System.setProperty("jna.platform.library.path", "");
      com.sun.jna.NativeLibrary.getInstance("c").getFunction("flock");
    }
    long t1 = System.nanoTime();
    NetlinkSocket.open().close();
    long t2 = System.nanoTime();
    NetlinkSocket.open().close();
    long t3 = System.nanoTime();
    System.out.printf(
        "jna-start=%.2f ms first-open=%.2f ms again=%.3f ms%n",
        (t1 - t0) / 1e6, (t2 - t1) / 1e6, (t3 - t2) / 1e6);
  }

  /**
   * The pool's NIC goes while the socket's buffer is full (a thousand links made and not read): its
   * RTM_DELLINK is dropped, and only /sys/class/net, read again, can tell.
   */
  private static void overrun(String type) throws Exception {
    ip("link", "add", "d0", "type", type);
    long pool = index("d0");
    System.out.println("pool=" + pool);
    try (NetlinkLinks links =
        NetlinkLinks.watch(
            Map.of(pool, new Link("d0", pool)),
            Path.of("/sys/class/net"),
            name -> name.startsWith("d"))) {
      StringBuilder batch = new StringBuilder();
      for (int i = 0; i < 1000; i++) {
        batch.append("link add x").append(i).append(" type ").append(type).append('\n');
      }
      Process p =
          new ProcessBuilder("ip", "-batch", "-")
              .inheritIO()
              .redirectInput(ProcessBuilder.Redirect.PIPE)
              .start();
      p.getOutputStream()
          .write(batch.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      p.getOutputStream().close();
      if (p.waitFor() != 0) {
        throw new IllegalStateException("ip -batch failed");
      }
      ip("link", "del", "d0");
      System.out.println("detached=" + links.detached(AT_MOST).map(Link::toString).orElse("none"));
      ip("link", "add", "d0", "type", type);
      ip("link", "set", "d0", "up");
      System.out.println("attached=" + links.attached(AT_MOST).map(Link::toString).orElse("none"));
      System.out.println("new=" + index("d0"));
    }
  }

  /** A link's index, from this namespace's /sys. */
  private static long index(String name) throws Exception {
    return Long.parseLong(Files.readString(Path.of("/sys/class/net", name, "ifindex")).trim());
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
