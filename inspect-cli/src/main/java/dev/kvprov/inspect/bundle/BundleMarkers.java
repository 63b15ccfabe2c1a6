package dev.kvprov.inspect.bundle;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvprov.kvp.IoErrors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * {@code state/markers.txt}: the names of the files in kvprov's state directory, and when each
 * marker ({@code <vm id>.provisioned}, {@code .ready}) was written, from the file system. Never a
 * file's contents: the provisioning media and custom data may be kept there.
 */
final class BundleMarkers {
  private BundleMarkers() {}

  public static void add(Path root, BundleUsers users, BundleFiles files) {
    BundleManifest manifest = files.manifest();
    Path state = root.resolve("var/lib/kvprov");
    if (!BundleImageFiles.inside(root, "var/lib/kvprov", manifest)) {
      return;
    }
    if (!Files.isDirectory(state)) {
      manifest.add("no kvprov state directory at " + state);
      return;
    }
    StringBuilder listing = new StringBuilder();
    try (Stream<Path> found = Files.list(state)) {
      for (Path f : (Iterable<Path>) found.sorted()::iterator) {
        String name = f.getFileName().toString();
        listing.append(Files.isDirectory(f) ? name + "/" : name);
        if (name.endsWith(".provisioned") || name.endsWith(".ready")) {
          listing
              .append("  written ")
              .append(Files.getLastModifiedTime(f, LinkOption.NOFOLLOW_LINKS));
        }
        listing.append('\n');
      }
      files.add(
          "state/markers.txt", users.redact(listing.toString()).getBytes(UTF_8), state.toString());
    } catch (IOException e) {
      manifest.add("not read: " + state + ": " + IoErrors.reason(e));
    }
  }
}
