package dev.kvprov.inspect.bundle;

import java.nio.file.Path;

/**
 * What a bundle is made of, as the command line named it: the live pool directory, a rescued root,
 * or one file. The parts ask this rather than picocli's options, so each can be made and tested
 * without a command line.
 *
 * @param root the image the configuration, markers and journal come from: {@code /} unless {@code
 *     --root}
 * @param dir the live pool directory ({@code --dir})
 * @param file the {@code --file} or {@code --host-xml} as given, empty for a directory or a root
 * @param pool the pool {@code kvp}'s own commands read
 */
public record BundleInput(Kind kind, Path root, Path dir, String file, int pool) {
  public enum Kind {
    LIVE,
    ROOT,
    FILE,
    HOST_EXPORT
  }

  /**
   * A file named on the command line, copied from some VM: this machine's configuration, markers
   * and journal are not that VM's.
   */
  public boolean given() {
    return kind == Kind.FILE || kind == Kind.HOST_EXPORT;
  }

  boolean hostExport() {
    return kind == Kind.HOST_EXPORT;
  }

  public boolean underRoot() {
    return kind == Kind.ROOT;
  }

  /** Where pools 0 to 3 are: the root's, or the live directory. */
  Path poolDirectory() {
    return underRoot() ? root.resolve("var/lib/hyperv") : dir;
  }
}
