package dev.kvprov.agent;

import dev.kvprov.agent.demo.DemoRoot;
import dev.kvprov.fixtures.Fixtures;
import java.nio.file.Files;
import java.nio.file.Path;

/** A throwaway VM for the commands' tests: a demo root with a known VM id, and sample media. */
final class TestVm {
  /** The VM id its firmware gives, as the simulator's IMDS gives it too. */
  static final String ID = "a1b2c3d4-1111-4222-8333-444455556666";

  private TestVm() {}

  /** {@code dir/root}: a demo root that is a Generation 2 VM with the id {@link #ID}. */
  static Path root(Path dir) throws Exception {
    Path root = DemoRoot.create(dir.resolve("root"), true);
    Files.createDirectories(root.resolve("sys/class/dmi/id"));
    Files.createDirectories(root.resolve("sys/firmware/efi"));
    Files.writeString(root.resolve("sys/class/dmi/id/product_uuid"), ID.toUpperCase() + "\n");
    return root;
  }

  /** {@code dir/media}: the sample ovf-env.xml, whose password ends in the canary. */
  static Path media(Path dir) throws Exception {
    Path media = Files.createDirectories(dir.resolve("media"));
    Files.copy(Fixtures.path(Fixtures.OVF_ENV), media.resolve("ovf-env.xml"));
    return media;
  }
}
