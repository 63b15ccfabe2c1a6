package dev.kvprov.inspect.bundle;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorOutputStream;

/**
 * The bundle's {@code .tar.gz}, written as it goes: each file is copied in from disk and never held
 * whole, so a bundle of gigabytes needs no more memory than one of kilobytes.
 */
final class BundleTar implements Closeable {
  private final TarArchiveOutputStream tar;
  private final long now = Instant.now().toEpochMilli();

  BundleTar(OutputStream out) throws IOException {
    tar = new TarArchiveOutputStream(new GzipCompressorOutputStream(out));
    tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
  }

  /**
   * {@code file} as {@code kvp-bundle/NAME}: a file of the bundle's own, which nothing else writes.
   */
  void add(String name, Path file) throws IOException {
    long size = Files.size(file);
    TarArchiveEntry entry = new TarArchiveEntry("kvp-bundle/" + name);
    entry.setSize(size);
    entry.setMode(0600);
    entry.setModTime(now);
    tar.putArchiveEntry(entry);
    try (InputStream in = Files.newInputStream(file)) {
      long copied = in.transferTo(tar);
      if (copied != size) {
        throw new IOException(file + " changed while it was bundled");
      }
    }
    tar.closeArchiveEntry();
  }

  void add(String name, byte[] bytes) throws IOException {
    TarArchiveEntry entry = new TarArchiveEntry("kvp-bundle/" + name);
    entry.setSize(bytes.length);
    entry.setMode(0600);
    entry.setModTime(now);
    tar.putArchiveEntry(entry);
    tar.write(bytes);
    tar.closeArchiveEntry();
  }

  @Override
  public void close() throws IOException {
    tar.close();
  }
}
