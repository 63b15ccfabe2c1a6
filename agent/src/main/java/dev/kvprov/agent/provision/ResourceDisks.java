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
            String device = real(root, link);
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

  /** The device a link names, as the target system names it ({@code /dev/sdb}). */
  private static String real(SystemRoot root, Path link) {
    try {
      Path device = link.toRealPath();
      return device.startsWith(root.path())
          ? "/" + root.path().relativize(device)
          : device.toString();
    } catch (IOException e) {
      return "/" + root.path().relativize(link);
    }
  }

  /** The running system's mount table (an image root has none of its own). */
  private static List<String> mounts(SystemRoot root) throws IOException {
    Path table = root.resolve("/proc/self/mounts");
    return Files.isReadable(table) ? Files.readAllLines(table) : List.of();
  }

  private static Optional<String> mountPoint(String device, List<String> mounts) {
    for (String line : mounts) {
      String[] f = line.split(" ");
      if (f.length > 1 && f[0].equals(device)) {
        return Optional.of(f[1].replace("\\040", " "));
      }
    }
    return Optional.empty();
  }
}
