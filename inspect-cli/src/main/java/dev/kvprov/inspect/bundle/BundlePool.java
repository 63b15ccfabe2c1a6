package dev.kvprov.inspect.bundle;

import java.nio.file.Path;

/**
 * A pool file taken into the bundle.
 *
 * @param name its name in the bundle: {@code pools/NAME}, or {@code pools/archive/NAME} for an
 *     archived boot
 * @param pool its pool number, or -1 when its name gives none (a file named on the command line)
 */
record BundlePool(Path file, String name, int pool) {
  boolean archived() {
    return name.startsWith("pools/archive/");
  }
}
