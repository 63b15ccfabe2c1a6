package dev.kvprov.kvp;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where the shared fixtures and the test helpers live. */
final class TestPaths {
  private TestPaths() {}

  static Path fixture(String relative) {
    String configured = System.getProperty("kvprov.fixtures");
    Path base =
        configured != null ? Path.of(configured) : Path.of("..", "..", "shared", "fixtures");
    Path file = base.resolve(relative).normalize();
    if (!Files.exists(file)) {
      throw new IllegalStateException("fixture missing: " + file.toAbsolutePath());
    }
    return file;
  }

  /** A script of the shared tools folder. */
  static Path tool(String name) {
    String configured = System.getProperty("kvprov.tools");
    Path base = configured != null ? Path.of(configured) : Path.of("..", "..", "shared", "tools");
    return base.resolve(name).normalize();
  }

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
