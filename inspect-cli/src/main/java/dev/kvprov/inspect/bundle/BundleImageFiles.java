package dev.kvprov.inspect.bundle;

import dev.kvprov.inspect.pool.InputKind;
import dev.kvprov.inspect.pool.PoolSource;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;

/**
 * How a bundle reads the files it is given. A file of the image is read only when it is a regular
 * file, no link and not too large: on a rescued disk a link leads into the rescue machine, whose
 * files are not the ticket's, and a pipe or a device never ends. A file named on the command line
 * is the user's choice, so its links are followed, but it too must be a regular file.
 */
final class BundleImageFiles {
  /** The most one file may add: pools are a few MiB. */
  public static final int MAX_FILE_BYTES = 64 << 20;

  private BundleImageFiles() {}

  /**
   * Whether {@code relative} under {@code root} may be read: no link on the way leads out of it. If
   * one does, the manifest says so, once.
   */
  static boolean inside(Path root, String relative, BundleManifest manifest) {
    Optional<String> out = PoolSource.wayOut(root, relative);
    out.ifPresent(why -> manifest.addOnce("not read: " + why));
    return out.isEmpty();
  }

  /** A file of the image, whole, when it is plain and at most {@code max} bytes. */
  static byte[] read(Path file, int max) throws IOException {
    BasicFileAttributes a = plainFile(file);
    if (a.size() > max) {
      throw new FileSystemException(
          file.toString(), null, a.size() + " bytes: more than such a file holds");
    }
    try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
      return in.readNBytes(max);
    }
  }

  /** What a pool file of the image is (its first bytes looked at, no more). */
  static InputKind kindInImage(Path file) throws IOException {
    return head(file, plainFile(file).size(), LinkOption.NOFOLLOW_LINKS);
  }

  /** What a file named on the command line is: links followed, but a regular file. */
  static InputKind givenKind(Path file) throws IOException {
    PoolSource.requireRegularFile(file);
    return head(file, Files.size(file));
  }

  /**
   * {@code file}'s attributes, when it is a regular file and no link; else why not, as an exception
   * naming it.
   */
  private static BasicFileAttributes plainFile(Path file) throws IOException {
    BasicFileAttributes a =
        Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    if (a.isSymbolicLink()) {
      throw new FileSystemException(file.toString(), null, "a link: not followed");
    }
    if (!a.isRegularFile()) {
      throw new FileSystemException(file.toString(), null, "not a regular file");
    }
    return a;
  }

  private static InputKind head(Path file, long size, OpenOption... options) throws IOException {
    if (size > MAX_FILE_BYTES) {
      throw new FileSystemException(
          file.toString(), null, size + " bytes: more than a pool or an export holds");
    }
    try (InputStream in = Files.newInputStream(file, options)) {
      byte[] head = in.readNBytes(InputKind.HEAD_BYTES);
      return InputKind.of(head, head.length);
    }
  }
}
