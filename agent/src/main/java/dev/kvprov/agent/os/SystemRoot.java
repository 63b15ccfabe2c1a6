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

  /**
   * {@code path}, after checking that no part of it below {@code base} is a symbolic link. A file
   * the agent writes as root where a user can reach (the home directory) must not be redirected to
   * {@code /etc} by a planted link. ({@code /etc} itself belongs to root: links there are the
   * administrator's, and are followed.)
   *
   * @throws java.io.IOException naming the link, or if {@code path} is not below {@code base}
   */
  public static Path noLinksBelow(Path base, Path path) throws java.io.IOException {
    Path from = base.toAbsolutePath().normalize();
    Path relative = from.relativize(path.toAbsolutePath().normalize());
    if (relative.startsWith("..") || relative.toString().isEmpty()) {
      throw new java.io.IOException(path + " is not inside " + from);
    }
    Path walked = from;
    for (Path part : relative) {
      walked = walked.resolve(part);
      if (java.nio.file.Files.isSymbolicLink(walked)) {
        throw new java.io.IOException(walked + " is a symbolic link; refusing to write through it");
      }
    }
    return path;
  }

  /** {@code -P <root>} for shadow-utils when not live, else nothing. */
  public List<String> prefixArguments() {
    return isLive() ? List.of() : List.of("-P", path.toString());
  }
}
