package dev.kvprov.agent.provision;

import dev.kvprov.agent.os.SystemRoot;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * What the VM has of local, temporary disks — the resource disk and NVMe local disks — and where
 * they are mounted, as one span for the support engineer. Formatting and mounting them is not
 * kvprov's: azure-vm-utils' {@code azure-ephemeral-disk-setup} does it, and kvprov.service runs
 * after it; the udev links it names them by are read here ({@code /dev/disk/azure/resource}, {@code
 * /dev/disk/azure/local/…}).
 */
final class ResourceDisks {
  private ResourceDisks() {}

  static void record(SystemRoot root, Tracer tracer) {
    Span span = tracer.spanBuilder("resource_disk").startSpan();
    try {
      List<String> mounts = mounts(root);
      Path resource = root.resolve("/dev/disk/azure/resource");
      if (Files.exists(resource)) {
        String device = real(root, resource);
        span.setAttribute("resource.device", device);
        span.setAttribute("resource.mounted_on", mountPoint(device, mounts).orElse("not mounted"));
      } else {
        span.setAttribute("resource.device", "none");
      }
      List<String> local = new ArrayList<>();
      List<String> localMounts = new ArrayList<>();
      Path byName = root.resolve("/dev/disk/azure/local/by-index");
      if (Files.isDirectory(byName)) {
        try (Stream<Path> links = Files.list(byName)) {
          for (Path link : links.sorted().toList()) {
            String device =
                real(root, root.resolve("/dev/disk/azure/local/by-index/" + link.getFileName()));
            local.add(device);
            localMounts.add(mountPoint(device, mounts).orElse("not mounted"));
          }
        }
      }
      span.setAttribute("local_nvme.count", (long) local.size());
      if (!local.isEmpty()) {
        span.setAttribute(AttributeKey.stringArrayKey("local_nvme.devices"), local);
        span.setAttribute(AttributeKey.stringArrayKey("local_nvme.mounted_on"), localMounts);
      }
    } catch (IOException | RuntimeException e) {
      // Only a record for the reader: what could not be looked at is said, never a failure.
      span.setAttribute("error", String.valueOf(e.getMessage()));
    } finally {
      span.end();
    }
  }

  /**
   * The device a link names, as the target system names it ({@code /dev/sdb}). In an image root,
   * {@link SystemRoot#resolve} has followed its links inside the root already; only on the running
   * system is the link followed here.
   */
  private static String real(SystemRoot root, Path resolved) {
    Path device = resolved;
    if (root.isLive()) {
      try {
        device = resolved.toRealPath();
      } catch (IOException e) {
        // a dangling link: named as it is
      }
    }
    return "/" + root.path().relativize(device);
  }

  /** The running system's mount table (an image root has none of its own). */
  private static List<String> mounts(SystemRoot root) throws IOException {
    Path table = root.resolve("/proc/self/mounts");
    return Files.isReadable(table) ? Files.readAllLines(table) : List.of();
  }

  /**
   * Where {@code device} or one of its partitions ({@code sdb1}, {@code nvme0n1p1}) is mounted; for
   * a partition, its name follows in brackets.
   */
  private static Optional<String> mountPoint(String device, List<String> mounts) {
    for (String line : mounts) {
      String[] f = line.split(" ");
      if (f.length < 2 || !f[0].startsWith(device)) {
        continue;
      }
      String partition = f[0].substring(device.length());
      if (partition.isEmpty()) {
        return Optional.of(unescaped(f[1]));
      }
      if (partition.matches("p?\\d+")) {
        return Optional.of(
            unescaped(f[1]) + " (" + f[0].substring(f[0].lastIndexOf('/') + 1) + ")");
      }
    }
    return Optional.empty();
  }

  /** The mount table's octal escapes ({@code \040} a space, {@code \011} a tab…) undone. */
  private static String unescaped(String field) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < field.length(); i++) {
      char c = field.charAt(i);
      if (c == '\\'
          && i + 3 < field.length()
          && field.substring(i + 1, i + 4).matches("[0-7]{3}")) {
        out.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
        i += 3;
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }
}
