package dev.kvprov.agent.provision;

import dev.kvprov.agent.http.Deadline;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * {@link LinkEvents} from the kernel's own announcements, as cloud-init's Azure datasource waits
 * for a Savable VM's NIC swap: {@code RTM_DELLINK} for the pool's NIC going, then {@code
 * RTM_NEWLINK} for a NIC not seen before, up. The socket is bound before the pool's NICs are read
 * from {@code /sys/class/net} (those with a {@code device}, as {@link SysfsLinks} counts them), so
 * nothing between the two is missed; when the kernel drops announcements (an overrun), {@code
 * /sys/class/net} is read again for the truth. NICs are told apart by index, as there. What one
 * wait reads and the other needs (a new NIC up before the old one's going was read) is kept.
 */
final class NetlinkLinks implements LinkEvents {
  /** Room for any datagram the kernel sends (a link message is about a kilobyte). */
  private static final int DATAGRAM = 64 * 1024;

  /**
   * The longest one poll(2) blocks: a thread blocked in native code does not see an interrupt, so a
   * wait of minutes looks up once a second.
   */
  private static final Duration SLICE = Duration.ofSeconds(1);

  private final NetlinkSocket socket;
  private final Path classNet;
  private final Map<Long, Link> pool;
  private final Predicate<String> isNic;
  private final Map<Long, Link> gone = new LinkedHashMap<>();
  private final Map<Long, Link> newUp = new LinkedHashMap<>();
  private final byte[] datagram = new byte[DATAGRAM];

  private NetlinkLinks(
      NetlinkSocket socket, Path classNet, Map<Long, Link> pool, Predicate<String> isNic) {
    this.socket = socket;
    this.classNet = classNet;
    this.pool = Map.copyOf(pool);
    this.isNic = isNic;
  }

  /**
   * Watches the NICs by netlink, or, where there is none to open, by polling {@code classNet}
   * ({@link SysfsLinks}) after one warning.
   *
   * @throws IOException when there is no NIC to watch, or the links cannot be read
   */
  static LinkEvents watchOrPoll(Path classNet, Consumer<String> warn) throws IOException {
    try {
      return watch(classNet);
    } catch (NetlinkSocket.Unavailable e) {
      warn.accept(
          "netlink cannot be opened ("
              + e.getMessage()
              + "): watching /sys/class/net every "
              + SysfsLinks.POLL.toMillis()
              + " ms instead");
      return SysfsLinks.watch(classNet);
    }
  }

  /**
   * Starts watching: the NICs in {@code classNet} now are the pool's.
   *
   * @throws NetlinkSocket.Unavailable when netlink cannot be opened
   * @throws IOException when there is no NIC, or {@code classNet} cannot be read
   */
  static NetlinkLinks watch(Path classNet) throws IOException {
    NetlinkSocket socket = NetlinkSocket.open();
    try {
      Map<Long, Link> pool = SysfsLinks.nics(classNet, false);
      if (pool.isEmpty()) {
        throw new IOException("no NIC is there");
      }
      return new NetlinkLinks(
          socket, classNet, pool, name -> SysfsLinks.isNic(classNet.resolve(name)));
    } catch (IOException | RuntimeException e) {
      socket.close();
      throw e;
    }
  }

  /**
   * Starts watching with the pool given, counting the links {@code isNic} says are NICs: for a
   * network namespace of virtual links, which have no {@code device}.
   */
  static NetlinkLinks watch(Map<Long, Link> pool, Path classNet, Predicate<String> isNic)
      throws NetlinkSocket.Unavailable {
    return new NetlinkLinks(NetlinkSocket.open(), classNet, pool, isNic);
  }

  @Override
  public Optional<Link> detached(Duration within) throws IOException, InterruptedException {
    return await(gone, within);
  }

  @Override
  public Optional<Link> attached(Duration within) throws IOException, InterruptedException {
    return await(newUp, within);
  }

  @Override
  public void close() {
    socket.close();
  }

  /** The first link of {@code seen}, reading announcements until there is one or time is up. */
  private Optional<Link> await(Map<Long, Link> seen, Duration within)
      throws IOException, InterruptedException {
    Deadline deadline = Deadline.after(within);
    while (seen.isEmpty()) {
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
      if (deadline.expired()) {
        return Optional.empty();
      }
      int length;
      try {
        length = socket.receive(datagram, deadline.cap(SLICE));
      } catch (NetlinkSocket.Overrun e) {
        caughtUp(deadline);
        continue;
      }
      for (LinkMessage message : LinkMessage.parse(datagram, length)) {
        heard(message);
      }
    }
    return Optional.of(seen.values().iterator().next());
  }

  private void heard(LinkMessage message) {
    Link link = message.link();
    if (message.deleted()) {
      newUp.remove(link.index());
      Link pooled = pool.get(link.index());
      if (pooled != null) {
        gone.putIfAbsent(link.index(), pooled);
      }
    } else if (!pool.containsKey(link.index())) {
      if (message.up() && isNic.test(link.name())) {
        newUp.put(link.index(), link);
      } else {
        newUp.remove(link.index()); // went down again before anyone asked
      }
    }
  }

  /**
   * After an overrun: the announcements still queued are read, then {@code /sys/class/net} says
   * what the lost ones would have. The kernel reports one overrun until its queue is empty again
   * and drops what comes meanwhile without a word, so /sys is read only once the queue is empty.
   */
  private void caughtUp(Deadline deadline) throws IOException {
    while (!deadline.expired()) {
      int length;
      try {
        length = socket.receive(datagram, Duration.ZERO);
      } catch (NetlinkSocket.Overrun again) {
        continue;
      }
      if (length == 0) {
        break;
      }
      for (LinkMessage message : LinkMessage.parse(datagram, length)) {
        heard(message);
      }
    }
    resync();
  }

  /**
   * After announcements were lost: what {@code /sys/class/net} says now replaces them. A pool NIC
   * is gone when no link at all has its index.
   */
  private void resync() throws IOException {
    Map<Long, Link> now = SysfsLinks.links(classNet, false, any -> true);
    for (Link link : pool.values()) {
      if (!now.containsKey(link.index())) {
        gone.putIfAbsent(link.index(), link);
      }
    }
    newUp.clear();
    Predicate<Path> counts = entry -> isNic.test(entry.getFileName().toString());
    for (Link link : SysfsLinks.links(classNet, true, counts).values()) {
      if (!pool.containsKey(link.index())) {
        newUp.put(link.index(), link);
      }
    }
  }
}
