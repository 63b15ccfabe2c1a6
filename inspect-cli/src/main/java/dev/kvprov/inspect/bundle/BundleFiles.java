package dev.kvprov.inspect.bundle;

import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The bundle while it is written: its {@code .tar.gz}, each file named in the manifest as it goes
 * in, and a work directory beside it for the parts made on disk (never in memory). It is written
 * under a temporary name and moved into place whole at the end, so a failed run leaves no half
 * bundle where the ticket expects one; the work directory goes in any case.
 */
public final class BundleFiles implements Closeable {
  /** The most one command's output or the journal may add: a bundle goes into a ticket. */
  public static final int MAX_PART_BYTES = 32 << 20;

  private final Path target;
  private final Path work;
  private final Path partial;
  private final BundleManifest manifest;
  private final OutputStream file;
  private final BundleTar tar;
  private int files;
  private boolean closed;

  private BundleFiles(Path target, Path work, BundleManifest manifest) throws IOException {
    this.target = target;
    this.work = work;
    this.manifest = manifest;
    partial = work.resolve("bundle.tar.gz");
    file = Files.newOutputStream(partial);
    BundleTar opened;
    try {
      opened = new BundleTar(file);
    } catch (IOException e) {
      file.close();
      throw e;
    }
    tar = opened;
  }

  /** A bundle to be {@code target}, its work directory beside it (the same file system). */
  public static BundleFiles to(Path target, BundleManifest manifest) throws IOException {
    Path work = Files.createTempDirectory(target.toAbsolutePath().getParent(), ".kvp-bundle");
    try {
      return new BundleFiles(target, work, manifest);
    } catch (IOException e) {
      remove(work);
      throw e;
    }
  }

  /** A place in the work directory for a part made before it goes in. */
  public Path work(String name) {
    return work.resolve(name);
  }

  public BundleManifest manifest() {
    return manifest;
  }

  /** The files in the bundle so far. */
  public int files() {
    return files;
  }

  public void add(String name, byte[] bytes, String from) throws IOException {
    tar.add(name, bytes);
    files++;
    manifest.added(name, bytes.length, from);
  }

  /** A file made in the work directory into the bundle; it is then removed. */
  public void add(String name, Path made, String from) throws IOException {
    long size = Files.size(made);
    tar.add(name, made);
    files++;
    Files.delete(made);
    manifest.added(name, size, from);
  }

  /**
   * The manifest as the last file, then the bundle in its place, readable by its owner only: it
   * holds the pools, which may name the VM's users.
   */
  public void finish() throws IOException {
    tar.add("MANIFEST.txt", manifest.text());
    files++;
    closeStreams();
    Files.setPosixFilePermissions(partial, PosixFilePermissions.fromString("rw-------"));
    Files.move(
        partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  private void closeStreams() throws IOException {
    if (!closed) {
      closed = true;
      try (file) {
        tar.close();
      }
    }
  }

  /** Removes the work directory, and with it the bundle unless it was finished. */
  @Override
  public void close() throws IOException {
    try {
      closeStreams();
    } finally {
      remove(work);
    }
  }

  private static void remove(Path work) throws IOException {
    if (Files.notExists(work, LinkOption.NOFOLLOW_LINKS)) {
      return; // closed before: closing twice is allowed
    }
    try (Stream<Path> all = Files.walk(work)) {
      for (Path p : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }
}
