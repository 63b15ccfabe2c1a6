package dev.kvprov.agent.sim;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A guest's {@code /sys/class/net} as plain files, the way the platform changes it for a Savable
 * pre-provisioned VM: each NIC a directory with {@code ifindex}, {@code operstate} and a {@code
 * device} (which loopback and virtual links lack).
 */
public final class SimulatedNics {
  private SimulatedNics() {}

  /** Adds a NIC, up. */
  public static void plug(Path classNet, String name, long index) throws IOException {
    Path nic = classNet.resolve(name);
    Files.createDirectories(nic.resolve("device"));
    Files.writeString(nic.resolve("operstate"), "up\n");
    Files.writeString(nic.resolve("ifindex"), index + "\n");
  }

  /** Adds loopback, which has no device and never counts as a NIC. */
  public static void loopback(Path classNet) throws IOException {
    Path lo = Files.createDirectories(classNet.resolve("lo"));
    Files.writeString(lo.resolve("operstate"), "unknown\n");
    Files.writeString(lo.resolve("ifindex"), "1\n");
  }

  /** Takes a NIC away. */
  public static void unplug(Path classNet, String name) throws IOException {
    try (Stream<Path> files = Files.walk(classNet.resolve(name))) {
      for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(p);
      }
    }
  }
}
