package dev.kvprov.agent.provision;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;

/**
 * The network links of this VM coming and going, watched from the moment the watch began: the seam
 * where a Savable pre-provisioned VM learns that the platform took its pool NIC away and gave it
 * its customer's. Read from the kernel's netlink announcements on a VM ({@link NetlinkLinks}), from
 * {@code /sys/class/net} elsewhere ({@link SysfsLinks}); tests script it. Closed when the waits are
 * over.
 */
interface LinkEvents extends AutoCloseable {
  /** Where watches begin. */
  @FunctionalInterface
  interface Source {
    /**
     * Begins a watch: the NICs there now are the pool's.
     *
     * @throws IOException when there is no NIC to watch, or the links cannot be read
     */
    LinkEvents watch() throws IOException;
  }

  /**
   * One network interface.
   *
   * @param name its name ({@code eth0}); a NIC attached anew may get the same name again
   * @param index the kernel's interface index, which a new NIC never shares with the one it
   *     replaced
   */
  record Link(String name, long index) {
    @Override
    public String toString() {
      return name + " (index " + index + ")";
    }
  }

  /**
   * Waits for one of the NICs there when the watch began to go away.
   *
   * @return the NIC that went; empty when none did within {@code within}
   * @throws IOException when the links cannot be read at all
   */
  Optional<Link> detached(Duration within) throws IOException, InterruptedException;

  /**
   * Waits for a NIC that was not there when the watch began, and for it to be up (the image's
   * network manager brings a hot-plugged NIC up and asks DHCP for its address).
   *
   * @return the new NIC; empty when none was up within {@code within}
   * @throws IOException when the links cannot be read at all
   */
  Optional<Link> attached(Duration within) throws IOException, InterruptedException;

  /** Lets go of what the watch holds (a socket); nothing by default. */
  @Override
  default void close() {}
}
