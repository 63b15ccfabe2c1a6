package dev.kvprov.inspect.bundle;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvprov.inspect.pool.PoolSource;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * A pool into the bundle, streamed through a file of the work directory: as it is, or with user
 * names replaced (record by record for a pool, line by line for a host-side export). A pool that
 * grows while it is read is cut off at the same cap as was checked before it was taken.
 */
final class BundlePoolCopy {
  private BundlePoolCopy() {}

  public static void copy(
      BundlePool pool, BundleInput input, BundleUsers users, BundleFiles files) {
    try {
      Path spool = files.work("part");
      try (InputStream in =
              input.given()
                  ? Files.newInputStream(pool.file())
                  : Files.newInputStream(pool.file(), LinkOption.NOFOLLOW_LINKS);
          OutputStream out = Files.newOutputStream(spool)) {
        InputStream buffered = new BufferedInputStream(in);
        if (!users.redacting()) {
          copyCapped(buffered, out, pool.file());
        } else if (input.hostExport()) {
          try (PartWriter text =
              new PartWriter(out, users::redact, BundleImageFiles.MAX_FILE_BYTES)) {
            new InputStreamReader(buffered, UTF_8).transferTo(text);
          }
        } else {
          RedactedPool.copy(buffered, users.names(), out);
        }
      }
      files.add(pool.name(), spool, pool.file().toString());
    } catch (IOException e) {
      files.manifest().add("not read: " + pool.file() + ": " + PoolSource.why(e));
    }
  }

  private static void copyCapped(InputStream in, OutputStream out, Path file) throws IOException {
    byte[] buffer = new byte[1 << 16];
    long total = 0;
    for (int n; (n = in.read(buffer)) > 0; ) {
      total += n;
      if (total > BundleImageFiles.MAX_FILE_BYTES) {
        throw new FileSystemException(
            file.toString(),
            null,
            "grew past " + (BundleImageFiles.MAX_FILE_BYTES >> 20) + " MiB while read");
      }
      out.write(buffer, 0, n);
    }
  }
}
