package dev.kvprov.inspect;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A rescued OS disk as kvprov leaves it: an earlier boot in its archive, the last in the pool. */
public final class RescuedDisk {
  /** The archived copy's name: the boot that cleared it. */
  public static final String ARCHIVED = "pool1-1795322355.kvp";

  private RescuedDisk() {}

  /** {@code dir/rescued}, holding {@code earlierBoot} archived and {@code lastBoot} in pool 1. */
  public static Path of(Path dir, byte[] earlierBoot, byte[] lastBoot) throws IOException {
    Path root = dir.resolve("rescued");
    Path archive = Files.createDirectories(root.resolve("var/lib/kvprov/kvp-archive"));
    Files.write(archive.resolve(ARCHIVED), earlierBoot);
    Files.write(
        Files.createDirectories(root.resolve("var/lib/hyperv")).resolve(".kvp_pool_1"), lastBoot);
    return root;
  }
}
