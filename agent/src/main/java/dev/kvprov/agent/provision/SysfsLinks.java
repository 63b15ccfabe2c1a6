package dev.kvprov.agent.provision;

import dev.kvprov.agent.http.Deadline;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * {@link LinkEvents} from {@code /sys/class/net}, polled every 50 ms: each NIC is a directory there
 * with its {@code ifindex} and {@code operstate}. Used under {@code --root} (the demo and the
 * tests, whose simulated platform swaps plain files there) and on a VM where netlink cannot be
 * opened; a VM otherwise hears the kernel ({@link NetlinkLinks}). NICs are told apart by index, not
 * name: a NIC removed and another added under the same name between two polls is still seen as a
 * detach and an attach. Only NICs with a {@code device} (a bus device, as Hyper-V's netvsc NICs
 * have) count: loopback, bridges and veth pairs coming and going are not the platform's doing.
 */
final class SysfsLinks implements LinkEvents {
  static final Duration POLL = Duration.ofMillis(50);

  private final Path classNet;
  private final Map<Long, Link> pool;

  private SysfsLinks(Path classNet, Map<Long, Link> pool) {
    this.classNet = classNet;
    this.pool = pool;
  }

  /**
   * Starts watching: the NICs there now are the pool's.
   *
   * @throws IOException when there is none, or the directory cannot be read
   */
  static SysfsLinks watch(Path classNet) throws IOException {
    Map<Long, Link> pool = nics(classNet, false);
    if (pool.isEmpty()) {
      throw new IOException("no NIC is there");
    }
    return new SysfsLinks(classNet, pool);
  }

  @Override
  public Optional<Link> detached(Duration within) throws IOException, InterruptedException {
    Deadline deadline = Deadline.after(within);
    while (true) {
      Map<Long, Link> now = nics(classNet, false);
      for (Link link : pool.values()) {
        if (!now.containsKey(link.index())) {
          return Optional.of(link);
        }
      }
      if (deadline.expired()) {
        return Optional.empty();
      }
      Deadline.sleep(deadline.cap(POLL));
    }
  }

  @Override
  public Optional<Link> attached(Duration within) throws IOException, InterruptedException {
    Deadline deadline = Deadline.after(within);
    while (true) {
      for (Link link : nics(classNet, true).values()) {
        if (!pool.containsKey(link.index())) {
          return Optional.of(link);
        }
      }
      if (deadline.expired()) {
        return Optional.empty();
      }
      Deadline.sleep(deadline.cap(POLL));
    }
  }

  /**
   * The NICs there now, by index; {@code up} only those up ({@link #isUp}). {@link NetlinkLinks}
   * reads its pool here too.
   */
  static Map<Long, Link> nics(Path classNet, boolean up) throws IOException {
    return links(classNet, up, SysfsLinks::isNic);
  }

  /** Whether a link is a NIC: it has a bus device, as Hyper-V's netvsc NICs have. */
  static boolean isNic(Path link) {
    return Files.exists(link.resolve("device"));
  }

  /**
   * The links there now that {@code counts}, by index; {@code up} only those up ({@link #isUp}).
   * {@link NetlinkLinks} reads them here after an overrun.
   */
  static Map<Long, Link> links(Path classNet, boolean up, Predicate<Path> counts)
      throws IOException {
    Map<Long, Link> found = new LinkedHashMap<>();
    try (Stream<Path> entries = Files.list(classNet)) {
      for (Path entry : (Iterable<Path>) entries.sorted()::iterator) {
        if (!counts.test(entry)) {
          continue;
        }
        try {
          long index = Long.parseLong(read(entry.resolve("ifindex")));
          if (!up || isUp(entry)) {
            found.put(index, new Link(entry.getFileName().toString(), index));
          }
        } catch (IOException | NumberFormatException goneOrHalfMade) {
          // removed between the listing and the read, or not yet whole: the next poll sees it
        }
      }
    }
    return found;
  }

  /**
   * Whether a link can carry traffic: operstate {@code up}; where its driver keeps no operstate
   * ({@code unknown}), administratively up ({@code IFF_UP} in {@code flags}) with a carrier, as
   * {@link LinkMessage} judges the same link from netlink.
   */
  private static boolean isUp(Path link) throws IOException {
    String operstate = read(link.resolve("operstate"));
    if (operstate.equals("up")) {
      return true;
    }
    if (!operstate.equals("unknown")) {
      return false;
    }
    long flags = Long.decode(read(link.resolve("flags")));
    // carrier cannot be read (EINVAL) while the link is down: checked once it is up
    return (flags & LinkMessage.IFF_UP) != 0 && read(link.resolve("carrier")).equals("1");
  }

  private static String read(Path file) throws IOException {
    return Files.readString(file, StandardCharsets.US_ASCII).trim();
  }
}
