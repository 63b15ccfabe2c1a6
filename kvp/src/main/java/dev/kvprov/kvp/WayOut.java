package dev.kvprov.kvp;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A link below a root directory (a mounted OS disk, an image) that leads out of it. On a rescued
 * disk an absolute link such as {@code var/lib/hyperv -> /var/lib/hyperv} points, as this machine
 * sees it, at this machine's own files: read or written through, it would mix them with the disk's.
 * Whoever reads or writes under a root refuses such a path; a link that stays inside the root is
 * followed.
 *
 * @param link the first part of the path that leads out (a link, or below one)
 * @param target where it leads, as this machine resolves it
 */
public record WayOut(Path link, Path target) {
  public WayOut {
    requireNonNull(link, "link");
    requireNonNull(target, "target");
  }

  /**
   * The first part of {@code relative} below {@code root} that resolves outside the root, looking
   * only at the parts that exist (what does not exist yet will be made inside what was checked).
   * Nothing when all of it stays inside, or when the root itself does not exist.
   *
   * @param relative a path below the root: {@code var/lib/hyperv/.kvp_pool_1} (a leading {@code /}
   *     is ignored)
   */
  public static Optional<WayOut> find(Path root, String relative) throws IOException {
    Path inRoot;
    try {
      inRoot = root.toRealPath();
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
    Path probe = root;
    for (String part : relative.split("/")) {
      if (part.isEmpty() || part.equals(".")) {
        continue;
      }
      probe = probe.resolve(part);
      if (!Files.exists(probe, LinkOption.NOFOLLOW_LINKS)) {
        return Optional.empty();
      }
      Path real;
      try {
        real = probe.toRealPath();
      } catch (NoSuchFileException e) {
        // a dangling link: where it points is where a write through it would land
        real = Files.readSymbolicLink(probe);
        real = (real.isAbsolute() ? real : probe.getParent().resolve(real)).normalize();
      }
      if (!real.startsWith(inRoot)) {
        return Optional.of(new WayOut(probe, real));
      }
    }
    return Optional.empty();
  }

  /** {@code R/var/lib/hyperv leads out of R (to /var/lib/hyperv)}: the caller says what it did. */
  public String describe(Path root) {
    return link + " leads out of " + root + " (to " + target + ")";
  }
}
