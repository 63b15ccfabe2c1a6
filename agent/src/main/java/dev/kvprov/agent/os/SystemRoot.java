package dev.kvprov.agent.os;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.List;

/**
 * The root filesystem provisioning acts on: {@code /} on a VM, or a directory (image pipelines, the
 * demo, tests), where user tools run with {@code --prefix} and no service is touched.
 *
 * @param path the root directory
 */
public record SystemRoot(Path path) {
  public SystemRoot {
    requireNonNull(path, "path");
    path = path.toAbsolutePath().normalize();
  }

  public static SystemRoot live() {
    return new SystemRoot(Path.of("/"));
  }

  /** Whether this is the running system (services may be reloaded, hostnamectl used). */
  public boolean isLive() {
    return path.getParent() == null;
  }

  /** An absolute path of the target system, as seen from here. */
  public Path resolve(String absolute) {
    return path.resolve(absolute.replaceFirst("^/+", ""));
  }

  /** {@code -P <root>} for shadow-utils when not live, else nothing. */
  public List<String> prefixArguments() {
    return isLive() ? List.of() : List.of("-P", path.toString());
  }
}
