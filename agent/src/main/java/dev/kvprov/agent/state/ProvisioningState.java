package dev.kvprov.agent.state;

import dev.kvprov.agent.os.AtomicFiles;
import dev.kvprov.kvp.VmId;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Optional;

/**
 * What the agent has done for which VM, as marker files in {@code /var/lib/kvprov}: {@code <vm
 * id>.provisioned} once the OS is set up, and {@code <vm id>.ready} once the platform has accepted
 * the Ready report. Two markers, because a VM set up but never reported Ready must report on its
 * next boot instead of being skipped for ever. A clone has another VM id and provisions again.
 * Markers are written atomically and durably (temp file, fsync, rename, fsync directory). Ready
 * implies the set-up: a VM whose "provisioned" marker could not be written but which was reported
 * Ready does nothing on later boots.
 *
 * <p>A VM azure-init provisioned (its {@code <vm id>.provisioned} in its data directory) is not
 * provisioned again: azure-init writes that marker before it reports Ready and keeps no record of
 * the report, so such a VM is reported Ready once more (harmless to a VM the platform already knows
 * Ready) and kvprov's own Ready marker ends it there.
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
  private final Optional<Path> azureInitDirectory;

  public ProvisioningState(Path directory) {
    this.directory = directory;
    this.azureInitDirectory = Optional.empty();
  }

  /** Also heeding the provisioned markers azure-init wrote in {@code azureInitDirectory}. */
  public ProvisioningState(Path directory, Path azureInitDirectory) {
    this.directory = directory;
    this.azureInitDirectory = Optional.of(azureInitDirectory);
  }

  public Next next(VmId vmId) {
    if (!vmId.isKnown()) {
      return Next
          .PROVISION; // no id to remember it by: every boot provisions (the steps are idempotent)
    }
    if (Files.exists(marker(vmId, "ready"))) {
      return Next.NOTHING; // Ready is reported only after the set-up, whatever its marker says
    }
    return Files.exists(marker(vmId, "provisioned")) || provisionedByAzureInit(vmId)
        ? Next.REPORT_READY
        : Next.PROVISION;
  }

  /** Whether azure-init's marker for this VM id is there (kvprov's own markers aside). */
  public boolean provisionedByAzureInit(VmId vmId) {
    if (!vmId.isKnown() || azureInitDirectory.isEmpty()) {
      return false;
    }
    // Its id as azure-init read it: lower case today, upper case in versions that took
    // dmidecode's spelling.
    Path directory = azureInitDirectory.get();
    return Files.exists(directory.resolve(vmId.value() + ".provisioned"))
        || Files.exists(
            directory.resolve(vmId.value().toUpperCase(java.util.Locale.ROOT) + ".provisioned"));
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
