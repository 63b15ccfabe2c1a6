package dev.kvprov.agent.state;

import dev.kvprov.agent.os.AtomicFiles;
import dev.kvprov.kvp.VmId;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;

/**
 * What the agent has done for which VM, as marker files in {@code /var/lib/kvprov}: {@code <vm
 * id>.provisioned} once the OS is set up, and {@code <vm id>.ready} once the platform has accepted
 * the Ready report. Two markers, because a VM set up but never reported Ready must report on its
 * next boot instead of being skipped for ever. A clone has another VM id and provisions again.
 * Markers are written atomically and durably (temp file, fsync, rename, fsync directory). Ready
 * implies the set-up: a VM whose "provisioned" marker could not be written but which was reported
 * Ready does nothing on later boots.
 */
public final class ProvisioningState {
  /** What this boot has to do. */
  public enum Next {
    /** Never provisioned for this VM id (or a clone): do everything. */
    PROVISION,
    /** Provisioned, but Ready never reached the platform: only report. */
    REPORT_READY,
    /** Provisioned and reported: nothing to do. */
    NOTHING
  }

  private final Path directory;

  public ProvisioningState(Path directory) {
    this.directory = directory;
  }

  public Next next(VmId vmId) {
    if (!vmId.isKnown()) {
      return Next
          .PROVISION; // no id to remember it by: every boot provisions (the steps are idempotent)
    }
    if (Files.exists(marker(vmId, "ready"))) {
      return Next.NOTHING; // Ready is reported only after the set-up, whatever its marker says
    }
    return Files.exists(marker(vmId, "provisioned")) ? Next.REPORT_READY : Next.PROVISION;
  }

  public void markProvisioned(VmId vmId) throws IOException {
    write(marker(vmId, "provisioned"));
  }

  public void markReportedReady(VmId vmId) throws IOException {
    write(marker(vmId, "ready"));
  }

  /** Forgets everything recorded for this VM id ({@code kvprov clean}). */
  public void clear(VmId vmId) throws IOException {
    Files.deleteIfExists(marker(vmId, "provisioned"));
    Files.deleteIfExists(marker(vmId, "ready"));
  }

  Path marker(VmId vmId, String kind) {
    return directory.resolve(vmId.value() + "." + kind);
  }

  /**
   * The marker with its time in it; on a full file system, where no data block is left, an empty
   * marker (a name needs no data block): only its existence counts.
   */
  private void write(Path marker) throws IOException {
    try {
      AtomicFiles.write(marker, Instant.now() + "\n", "rw-------", -1, -1);
    } catch (IOException full) {
      try {
        if (!Files.exists(marker)) {
          Files.createFile(
              marker,
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        }
        AtomicFiles.syncDirectory(directory);
      } catch (IOException e) {
        full.addSuppressed(e);
        throw full;
      }
    }
  }
}
