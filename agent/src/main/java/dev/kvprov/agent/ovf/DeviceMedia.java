package dev.kvprov.agent.ovf;

import dev.kvprov.agent.os.CommandResult;
import dev.kvprov.agent.os.CommandRunner;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The platform's provisioning CD-ROM: an iso9660/udf filesystem already mounted, or one of the
 * configured devices (default {@code /dev/sr0}) mounted read-only in a private directory under
 * {@code /run/kvprov}, read, then <em>always</em> unmounted and ejected — on errors too.
 */
public final class DeviceMedia implements ProvisioningMedia {
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(30);

  private final List<String> devices;
  private final Path root;
  private final Path runDirectory;
  private final CommandRunner runner;
  private final Tracer tracer;

  /**
   * @param devices device paths to try, in order
   * @param root the root filesystem ({@code /} on a VM) under which devices and {@code proc/mounts}
   *     are looked up
   * @param runDirectory where private mount points are made (e.g. {@code /run/kvprov})
   */
  public DeviceMedia(
      List<String> devices, Path root, Path runDirectory, CommandRunner runner, Tracer tracer) {
    this.devices = List.copyOf(devices);
    this.root = root;
    this.runDirectory = runDirectory;
    this.runner = runner;
    this.tracer = tracer;
  }

  @Override
  public OvfEnvironment read() throws OvfException, InterruptedException {
    Span span = tracer.spanBuilder("media.read_ovf").startSpan();
    try (Scope ignored = span.makeCurrent()) {
      OvfEnvironment env = find();
      span.setAttribute("ovf.ssh_keys", (long) env.sshKeys().size());
      span.setAttribute("ovf.has_password", env.password().isPresent());
      return env;
    } catch (OvfException e) {
      span.setStatus(StatusCode.ERROR, e.getMessage());
      throw e;
    } finally {
      span.end();
    }
  }

  private OvfEnvironment find() throws OvfException, InterruptedException {
    List<String> tried = new ArrayList<>();
    for (Path mounted : mountedMedia()) {
      if (Files.isRegularFile(mounted.resolve("ovf-env.xml"))) {
        return DirectoryMedia.readFrom(mounted);
      }
      tried.add(mounted + " (mounted, no ovf-env.xml)");
    }
    for (String device : devices) {
      Path node = root.resolve(device.replaceFirst("^/+", ""));
      if (!Files.exists(node)) {
        tried.add(device + " (absent)");
        continue;
      }
      Attempt attempt = mountAndRead(device);
      if (attempt.environment() != null) {
        return attempt.environment();
      }
      tried.add(device + " (" + attempt.failure() + ")");
    }
    throw new OvfException(
        "no provisioning media with ovf-env.xml: tried " + String.join(", ", tried));
  }

  /** What one device gave: the environment, or why not. */
  private record Attempt(OvfEnvironment environment, String failure) {}

  /** Mounts, reads, unmounts and ejects. A bad ovf-env.xml is an error, not a reason to go on. */
  private Attempt mountAndRead(String device) throws OvfException, InterruptedException {
    Path mountPoint;
    try {
      Files.createDirectories(runDirectory);
      mountPoint =
          Files.createTempDirectory(
              runDirectory,
              "media-",
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    } catch (IOException e) {
      throw new OvfException(
          "cannot make a mount point in " + runDirectory + ": " + e.getMessage(), e);
    }
    boolean mounted = false;
    try {
      CommandResult mount =
          runner.run(
              List.of(
                  "mount",
                  "-o",
                  "ro,nosuid,nodev,noexec",
                  "-t",
                  "udf,iso9660",
                  device,
                  mountPoint.toString()),
              COMMAND_TIMEOUT);
      if (!mount.succeeded()) {
        return new Attempt(null, "mount: " + mount.summary());
      }
      mounted = true;
      return new Attempt(DirectoryMedia.readFrom(mountPoint), null);
    } catch (IOException e) {
      return new Attempt(null, "mount could not run: " + e.getMessage());
    } finally {
      cleanUp(device, mountPoint, mounted);
    }
  }

  private void cleanUp(String device, Path mountPoint, boolean mounted)
      throws InterruptedException {
    if (mounted) {
      try {
        CommandResult umount =
            runner.run(List.of("umount", mountPoint.toString()), COMMAND_TIMEOUT);
        if (!umount.succeeded()) {
          Span.current().addEvent("umount failed: " + umount.summary());
        }
        runner.run(List.of("eject", device), COMMAND_TIMEOUT);
      } catch (IOException e) {
        Span.current().addEvent("cleanup failed: " + e.getMessage());
      }
    }
    try {
      Files.deleteIfExists(mountPoint);
    } catch (IOException e) {
      Span.current().addEvent("cannot remove " + mountPoint + ": " + e.getMessage());
    }
  }

  /** Mount points of iso9660/udf filesystems listed in {@code proc/mounts}. */
  private List<Path> mountedMedia() {
    List<Path> found = new ArrayList<>();
    try {
      for (String line : Files.readAllLines(root.resolve("proc/mounts"))) {
        String[] fields = line.split(" ");
        if (fields.length > 2 && (fields[2].equals("iso9660") || fields[2].equals("udf"))) {
          found.add(root.resolve(fields[1].replace("\\040", " ").replaceFirst("^/+", "")));
        }
      }
    } catch (IOException e) {
      // no proc/mounts under this root: nothing is mounted
    }
    return found;
  }
}
