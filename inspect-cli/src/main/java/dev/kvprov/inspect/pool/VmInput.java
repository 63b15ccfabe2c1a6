package dev.kvprov.inspect.pool;

import dev.kvprov.kvp.IoErrors;
import dev.kvprov.kvp.PoolVisitor;
import dev.kvprov.kvp.RecordCodec;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;

/**
 * One VM's records for {@code kvp fleet}: a pool file, a host-side export (what the host side has
 * of each VM), or the pool inside a {@code kvp bundle} — told apart by their first bytes, as the
 * read commands tell a pool from an export.
 *
 * @param name the VM as the output names it: the file's name without its extension (a live pool's
 *     {@code .kvp_pool_N}, the same for every VM, keeps its path)
 * @param file where its records are
 */
public record VmInput(String name, Path file) {
  /** Where a bundle keeps the VM's pool: pool 1, or the one file {@code --file} gave it. */
  private static final String BUNDLE_POOLS = "kvp-bundle/pools/";

  private static final String BUNDLE_POOL_1 = BUNDLE_POOLS + ".kvp_pool_1";

  /**
   * The inputs {@code paths} name, in order: a directory's regular files sorted by name (its
   * subdirectories are not entered), a file as it is.
   *
   * @throws IOException naming the path that cannot be read (missing, unreadable)
   */
  public static List<VmInput> of(List<Path> paths) throws IOException {
    List<VmInput> inputs = new ArrayList<>();
    for (Path path : paths) {
      if (Files.isDirectory(path)) {
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(path)) {
          for (Path entry : entries) {
            if (Files.isRegularFile(entry)) {
              files.add(entry);
            }
          }
        }
        files.sort(null);
        files.forEach(f -> inputs.add(of(f)));
      } else if (Files.exists(path)) {
        inputs.add(of(path));
      } else {
        throw new java.nio.file.NoSuchFileException(path.toString());
      }
    }
    return inputs;
  }

  private static VmInput of(Path file) {
    String name = file.getFileName().toString();
    if (name.matches("\\.kvp_pool_[0-9]")) {
      // every VM's live pool has this name: the path tells them apart
      return new VmInput(file.toString(), file);
    }
    String lower = name.toLowerCase(Locale.ROOT);
    for (String extension : List.of(".tar.gz", ".tgz", ".xml", ".json", ".kvp", ".txt")) {
      if (lower.endsWith(extension) && lower.length() > extension.length()) {
        name = name.substring(0, name.length() - extension.length());
        break;
      }
    }
    return new VmInput(name, file);
  }

  /**
   * Streams the VM's records to {@code visitor}: a pool's, an export's, or those of the pool a
   * bundle holds. One input is read at a time, as a stream: nothing is unpacked to disk.
   *
   * @throws IOException why it cannot be read
   */
  public void scan(PoolVisitor visitor) throws IOException {
    PoolSource.requireRegularFile(file);
    try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
      InputKind kind = head(in);
      if (kind == InputKind.ARCHIVE) {
        scanBundle(in, visitor);
      } else {
        scan(kind, in, visitor, "");
      }
    }
  }

  private static void scan(InputKind kind, InputStream in, PoolVisitor visitor, String where)
      throws IOException {
    switch (kind) {
      case EMPTY, POOL -> RecordCodec.scan(in, visitor);
      case HOST_EXPORT -> HostExport.scan(PoolSource.text(in), visitor);
      default ->
          throw new InputKind.WrongInput(
              where
                  + "is neither a pool, a host-side export nor a kvp bundle ("
                  + kind.name().toLowerCase(Locale.ROOT).replace('_', ' ')
                  + ")");
    }
  }

  /**
   * The pool in a bundle: {@code kvp-bundle/pools/.kvp_pool_1}, or the one pool or export {@code
   * kvp bundle --file} or {@code --host-xml} put there; the archives of earlier boots are not the
   * VM's last boot, and are passed over.
   */
  private void scanBundle(InputStream raw, PoolVisitor visitor) throws IOException {
    raw.mark(2);
    boolean gzip = raw.read() == 0x1F && raw.read() == 0x8B;
    raw.reset();
    try (TarArchiveInputStream tar =
        new TarArchiveInputStream(gzip ? new GzipCompressorInputStream(raw) : raw)) {
      boolean bundle = false;
      for (TarArchiveEntry entry = tar.getNextEntry(); entry != null; entry = tar.getNextEntry()) {
        String name = entry.getName();
        bundle |= name.startsWith("kvp-bundle/");
        if (!entry.isFile() || !name.startsWith(BUNDLE_POOLS)) {
          continue;
        }
        String rest = name.substring(BUNDLE_POOLS.length());
        boolean given = !rest.contains("/") && !rest.matches("\\.kvp_pool_[0-9]");
        if (name.equals(BUNDLE_POOL_1) || given) {
          BufferedInputStream pool = new BufferedInputStream(tar, 1 << 16);
          scan(head(pool), pool, visitor, name + " ");
          return;
        }
      }
      throw new InputKind.WrongInput(
          bundle
              ? "a kvp bundle with no pool 1 in " + BUNDLE_POOLS
              : "a tar or gzip archive, but no kvp bundle (nothing under kvp-bundle/)");
    } catch (InputKind.WrongInput e) {
      throw e;
    } catch (IOException e) {
      throw new InputKind.WrongInput(
          "a tar or gzip archive that cannot be read to its end ("
              + (e instanceof java.io.EOFException ? "it is cut short" : IoErrors.reason(e))
              + ")");
    }
  }

  /** The kind of what {@code in} holds, read without taking it: {@code in} is reset. */
  private static InputKind head(InputStream in) throws IOException {
    in.mark(InputKind.HEAD_BYTES);
    byte[] head = in.readNBytes(InputKind.HEAD_BYTES);
    in.reset();
    return InputKind.of(head, head.length);
  }
}
