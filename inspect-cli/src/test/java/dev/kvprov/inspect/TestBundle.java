package dev.kvprov.inspect;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvprov.inspect.bundle.BundleFiles;
import dev.kvprov.inspect.bundle.BundleManifest;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;

/** A real bundle in a test's directory, for one part to write into and the test to unpack. */
public final class TestBundle implements AutoCloseable {
  public final BundleManifest manifest = new BundleManifest();
  public final BundleFiles files;
  private final Path target;

  public TestBundle(Path dir) throws IOException {
    target = dir.resolve("test-bundle.tar.gz");
    files = BundleFiles.to(target, manifest);
  }

  /** The bundle finished, each file's text by its name (without {@code kvp-bundle/}). */
  public Map<String, String> finish() throws IOException {
    files.finish();
    files.close();
    return unpack(target);
  }

  public static Map<String, String> unpack(Path bundle) throws IOException {
    Map<String, String> found = new LinkedHashMap<>();
    stored(bundle)
        .forEach(
            (name, bytes) ->
                found.put(name.replaceFirst("^kvp-bundle/", ""), new String(bytes, UTF_8)));
    return found;
  }

  /** Every file of a bundle by the name it has in the archive, as its bytes, in archive order. */
  public static Map<String, byte[]> stored(Path bundle) throws IOException {
    Map<String, byte[]> found = new LinkedHashMap<>();
    try (InputStream in = Files.newInputStream(bundle);
        TarArchiveInputStream tar = new TarArchiveInputStream(new GzipCompressorInputStream(in))) {
      TarArchiveEntry entry;
      while ((entry = tar.getNextEntry()) != null) {
        found.put(entry.getName(), tar.readAllBytes());
      }
    }
    return found;
  }

  @Override
  public void close() throws IOException {
    files.close();
  }
}
