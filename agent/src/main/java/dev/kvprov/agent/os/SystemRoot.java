package dev.kvprov.agent.os;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;

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

  /**
   * Why this live root is not the running system's, if it is not: {@code /} here is not the root
   * PID 1 sees (a build chroot), judged as {@code systemd-detect-virt --chroot} does, by device and
   * inode of {@code /} and {@code <proc>/1/root}. A {@code proc} that is not mounted is a chroot
   * too: no booted system lacks it. When PID 1's root cannot be looked at (not root), nothing is
   * said; an image root ({@code --root}) is never a chroot.
   *
   * @param proc where proc is mounted: {@code /proc}
   */
  public Optional<String> chroot(Path proc) {
    if (!isLive()) {
      return Optional.empty();
    }
    if (!Files.isDirectory(proc.resolve("self"))) {
      return Optional.of("this is taken for a chroot (" + proc + " is not mounted)");
    }
    try {
      if (Files.isSameFile(path, proc.resolve("1/root"))) {
        return Optional.empty();
      }
    } catch (IOException | SecurityException e) {
      return Optional.empty(); // PID 1's root is not ours to see: no verdict
    }
    return Optional.of("this is a chroot (/ is not the root of PID 1)");
  }

  /** Whether this is the running system and systemd manages it (its services can be asked). */
  public boolean runsSystemd() {
    return isLive() && Files.isDirectory(path.resolve("run/systemd/system"));
  }

  /**
   * An absolute path of the target system, as seen from here: resolved the way the target itself
   * would see it, inside the root. A symbolic link in the image to an absolute path points into the
   * image, not to this machine, and {@code ..} stops at the root ({@code openat2}'s {@code
   * RESOLVE_IN_ROOT}, done as a walk): no link in an image can make the agent write outside it.
   * Parts that do not exist yet are taken as they are.
   *
   * @throws UncheckedIOException for a loop of links, or a link that cannot be read
   */
  public Path resolve(String absolute) {
    if (isLive()) {
      return path.resolve(absolute.replaceFirst("^/+", ""));
    }
    Deque<String> todo = new ArrayDeque<>(parts(absolute));
    Path current = path;
    int links = 0;
    while (!todo.isEmpty()) {
      String part = todo.pop();
      if (part.equals("..")) {
        current = current.equals(path) ? path : current.getParent();
        continue;
      }
      Path next = current.resolve(part);
      if (!Files.isSymbolicLink(next)) {
        current = next;
        continue;
      }
      if (++links > MAX_LINKS) {
        throw new UncheckedIOException(
            new IOException(absolute + " in " + path + ": too many levels of symbolic links"));
      }
      String target;
      try {
        target = Files.readSymbolicLink(next).toString();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      List<String> more = parts(target);
      for (int i = more.size() - 1; i >= 0; i--) {
        todo.push(more.get(i));
      }
      if (target.startsWith("/")) {
        current = path;
      }
    }
    return current;
  }

  /** As many links as Linux follows in one lookup. */
  private static final int MAX_LINKS = 40;

  private static List<String> parts(String path) {
    List<String> parts = new ArrayList<>();
    for (String part : path.split("/")) {
      if (!part.isEmpty() && !part.equals(".")) {
        parts.add(part);
      }
    }
    return parts;
  }

  /**
   * Checks that a tool given {@code --prefix} (which follows links as this machine sees them) stays
   * inside the root when it touches {@code absolute}.
   *
   * @throws IOException naming the link that leads out
   */
  public void requireNoWayOut(String absolute) throws IOException {
    if (isLive()) {
      return;
    }
    // the rule kvp follows reading under --root: one rule, in one place
    java.util.Optional<dev.kvprov.kvp.WayOut> out = dev.kvprov.kvp.WayOut.find(path, absolute);
    if (out.isPresent()) {
      throw new IOException(
          "/"
              + path.relativize(out.get().link())
              + " in "
              + path
              + " leads out of it (to "
              + out.get().target()
              + "): refusing to let a tool write there");
    }
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
