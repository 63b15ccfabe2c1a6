package dev.kvprov.kvp;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Keeps copies of stale pools before they are cleared, so the telemetry of a boot that the platform
 * cut short (a first provisioning attempt that timed out) survives the next boot.
 *
 * <p>Files are named {@code <label>-<boot epoch>.kvp} after the boot that cleared them (so they
 * hold what was written <em>before</em> that boot), mode 0600, and only the newest are kept. {@link
 * #copies} finds them again: the names are made and read here only.
 */
public final class PoolArchive {
  private final Path directory;
  private final int keep;

  PoolArchive(Path directory, int keep) {
    if (keep < 1) {
      throw new IllegalArgumentException("keep is " + keep + "; an archive keeps at least 1 copy");
    }
    this.directory = directory;
    this.keep = keep;
  }

  Path directory() {
    return directory;
  }

  /**
   * Copies the first {@code size} bytes of {@code source} into the archive, durably, then removes
   * the oldest copies beyond the count to keep. A crash leaves either no copy or a whole one.
   */
  Path store(FileChannel source, long size, String label, long bootEpochSecond) throws IOException {
    Files.createDirectories(
        directory,
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    Path temp =
        Files.createTempFile(
            directory,
            "." + label + "-",
            ".partial",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    try {
      try (FileChannel out = FileChannel.open(temp, StandardOpenOption.WRITE)) {
        long copied = 0;
        while (copied < size) {
          long n = source.transferTo(copied, size - copied, out);
          if (n <= 0) {
            throw new IOException(
                "the pool shrank while it was archived: " + copied + " of " + size + " bytes");
          }
          copied += n;
        }
        out.force(true);
      }
      Path target = uniqueName(label, bootEpochSecond);
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
      syncDirectory();
      prune(label, target);
      return target;
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  private Path uniqueName(String label, long epoch) {
    Path target = directory.resolve(label + "-" + epoch + ".kvp");
    for (int n = 2; Files.exists(target); n++) {
      target = directory.resolve(label + "-" + epoch + "-" + n + ".kvp");
    }
    return target;
  }

  private void syncDirectory() throws IOException {
    try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
      dir.force(true);
    }
  }

  /**
   * Keeps {@code justStored} and the newest others up to the count to keep. The new copy is kept
   * whatever its name says: after a wall-clock step back, its boot epoch may rank it oldest.
   */
  private void prune(String label, Path justStored) throws IOException {
    List<Copy> copies = new ArrayList<>(copies(directory, label));
    copies.removeIf(c -> c.path().equals(justStored));
    Collections.reverse(copies);
    for (Copy old : copies.subList(Math.min(keep - 1, copies.size()), copies.size())) {
      Files.deleteIfExists(old.path());
    }
  }

  /** One archived copy: the boot it was cleared by, and its number among that boot's copies. */
  private record Copy(Path path, long epoch, long sequence) {}

  /**
   * The archived copies of pool {@code pool} (0 to 3) in {@code directory}, oldest boot first; none
   * if there is no such directory.
   */
  public static List<Path> copies(Path directory, int pool) throws IOException {
    if (!Files.isDirectory(directory)) {
      return List.of();
    }
    return copies(directory, "pool" + pool).stream().map(Copy::path).toList();
  }

  private static List<Copy> copies(Path directory, String label) throws IOException {
    Pattern name = Pattern.compile(Pattern.quote(label) + "-(\\d+)(?:-(\\d+))?\\.kvp");
    List<Copy> copies = new ArrayList<>();
    try (Stream<Path> files = Files.list(directory)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        Matcher m = name.matcher(file.getFileName().toString());
        if (!m.matches()) {
          continue;
        }
        try {
          long sequence = m.group(2) == null ? 1 : Long.parseLong(m.group(2));
          copies.add(new Copy(file, Long.parseLong(m.group(1)), sequence));
        } catch (NumberFormatException e) {
          // a boot epoch beyond a long: not a name kvprov writes, still a copy (the newest)
          copies.add(new Copy(file, Long.MAX_VALUE, Long.MAX_VALUE));
        }
      }
    }
    copies.sort(Comparator.comparingLong(Copy::epoch).thenComparingLong(Copy::sequence));
    return copies;
  }
}
