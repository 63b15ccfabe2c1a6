package dev.kvprov.kvp;

import java.net.URISyntaxException;
import java.nio.file.Path;

/** Where this module's test helpers live (the shared test data comes from {@code Fixtures}). */
final class TestPaths {
  private TestPaths() {}

  /** A file of this repository, from its root. */
  static Path repository(String relative) {
    String configured = System.getProperty("kvprov.root");
    return (configured != null ? Path.of(configured) : Path.of("..")).resolve(relative).normalize();
  }

  /** A file among this package's test resources. */
  static Path resource(String name) {
    try {
      return Path.of(TestPaths.class.getResource(name).toURI());
    } catch (URISyntaxException | NullPointerException e) {
      throw new IllegalStateException("test resource missing: " + name, e);
    }
  }
}
