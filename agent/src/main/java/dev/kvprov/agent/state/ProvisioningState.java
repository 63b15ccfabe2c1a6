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
 * Ready) and kvprov's own markers end it there.
 *
 * <p>Without SMBIOS (a container, systemd-nspawn, an image root with an empty {@code sys/}) the id
 * is the one IMDS gave, remembered in {@code vm-id} beside the markers, so that a later boot knows
 * it is done without asking the network. No marker is ever written without an id: {@code
 * unknown.ready} would stand for every VM at once.
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

  /** The file that remembers the VM id IMDS gave, for machines without SMBIOS. */
  public static final String REMEMBERED_ID = "vm-id";

  /**
   * The VM id to go by: SMBIOS's when it has one; else the one IMDS gave an earlier boot, when it
   * was remembered; else {@code smbios} (unknown) as it is.
   */
  public VmId vmId(VmId smbios) {
    if (smbios.isKnown()) {
      return smbios;
    }
    Path file = directory.resolve(REMEMBERED_ID);
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException | RuntimeException e) {
      return smbios; // never remembered (or unreadable): IMDS will be asked
    }
    VmId remembered = VmId.parse(text, "IMDS compute.vmId of an earlier boot, in " + file);
    return remembered.isKnown() ? remembered : smbios;
  }

  /**
   * Remembers the id IMDS gave, for a machine without SMBIOS; written before the markers, so that a
   * marker is never found without the id it belongs to.
   */
  public void remember(VmId fromImds) throws IOException {
    requireKnown(fromImds);
    AtomicFiles.write(
        directory.resolve(REMEMBERED_ID), fromImds.value() + "\n", "rw-------", -1, -1);
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

  /**
   * @throws IOException also when the id is unknown: no marker is written for it
   */
  public void markProvisioned(VmId vmId) throws IOException {
    requireKnown(vmId);
    write(marker(vmId, "provisioned"));
  }

  /**
   * @throws IOException also when the id is unknown: no marker is written for it
   */
  public void markReportedReady(VmId vmId) throws IOException {
    requireKnown(vmId);
    write(marker(vmId, "ready"));
  }

  /** Whether kvprov's own "provisioned" marker for this id is there. */
  public boolean isMarkedProvisioned(VmId vmId) {
    return vmId.isKnown() && Files.exists(marker(vmId, "provisioned"));
  }

  private static void requireKnown(VmId vmId) throws IOException {
    if (!vmId.isKnown()) {
      throw new IOException("there is no VM id to name it by (" + vmId.source() + ")");
    }
  }

  /** Forgets everything recorded for this VM id ({@code kvprov clean}). */
  public void clear(VmId vmId) throws IOException {
    Files.deleteIfExists(marker(vmId, "provisioned"));
    Files.deleteIfExists(marker(vmId, "ready"));
    Files.deleteIfExists(directory.resolve(REMEMBERED_ID));
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
