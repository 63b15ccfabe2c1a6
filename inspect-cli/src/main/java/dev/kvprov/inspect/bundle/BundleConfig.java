package dev.kvprov.inspect.bundle;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvprov.kvp.IoErrors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * kvprov's (and azure-init's) configuration files into the bundle as {@code config/…}, secret
 * values masked ({@link BundleConfigMask}) and user names replaced when asked: how the agent was
 * told to run is half of most tickets.
 */
final class BundleConfig {
  /** The most a configuration file may be: a few KiB in practice. */
  static final int MAX_CONFIG_BYTES = 1 << 20;

  private static final List<String> DIRECTORIES = List.of("etc/kvprov", "etc/azure-init");

  private BundleConfig() {}

  public static void add(Path root, BundleUsers users, BundleFiles files) {
    BundleManifest manifest = files.manifest();
    boolean any = false;
    for (String directory : DIRECTORIES) {
      Path dir = root.resolve(directory);
      if (!BundleImageFiles.inside(root, directory, manifest) || !Files.isDirectory(dir)) {
        continue;
      }
      List<Path> found = new ArrayList<>();
      try (Stream<Path> walk = Files.walk(dir, 4)) {
        walk.filter(f -> f.toString().endsWith(".toml")).sorted().forEach(found::add);
      } catch (IOException e) {
        manifest.add("not read: " + dir + ": " + IoErrors.reason(e));
      }
      for (Path file : found) {
        try {
          String text = new String(BundleImageFiles.read(file, MAX_CONFIG_BYTES), UTF_8);
          files.add(
              "config/" + root.relativize(file),
              users.redact(BundleConfigMask.mask(text)).getBytes(UTF_8),
              file.toString());
          any = true;
        } catch (IOException e) {
          manifest.add("not read: " + file + ": " + IoErrors.reason(e));
        }
      }
    }
    if (!any) {
      manifest.add("no configuration files in " + root.resolve("etc/kvprov") + " (defaults apply)");
    }
  }
}
