package dev.kvprov.agent.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.kvp.VmId;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProvisioningStateTest {
  @TempDir Path dir;
  private static final VmId VM = new VmId("00840e55-9be2-d441-a716-446655440000", "test");
  private static final VmId CLONE = new VmId("11111111-2222-4333-8444-555555555555", "test");

  @Test
  void aNewVm_provisions_thenReports_thenRests() throws Exception {
    ProvisioningState state = new ProvisioningState(dir.resolve("var/lib/kvprov"));
    assertThat(state.next(VM)).isEqualTo(ProvisioningState.Next.PROVISION);

    state.markProvisioned(VM);
    assertThat(state.next(VM))
        .as("set up, Ready not yet accepted")
        .isEqualTo(ProvisioningState.Next.REPORT_READY);

    state.markReportedReady(VM);
    assertThat(state.next(VM)).isEqualTo(ProvisioningState.Next.NOTHING);
    assertThat(state.next(CLONE))
        .as("a clone of the image")
        .isEqualTo(ProvisioningState.Next.PROVISION);
  }

  @Test
  void aVmAzureInitProvisioned_onlyReportsReady_thenRests_andAClonesProvisions() throws Exception {
    Path azureInit = Files.createDirectories(dir.resolve("var/lib/azure-init"));
    Files.createFile(azureInit.resolve(VM.value() + ".provisioned"));
    ProvisioningState state = new ProvisioningState(dir.resolve("var/lib/kvprov"), azureInit);

    assertThat(state.provisionedByAzureInit(VM)).isTrue();
    assertThat(state.next(VM)).isEqualTo(ProvisioningState.Next.REPORT_READY);
    assertThat(state.next(CLONE)).isEqualTo(ProvisioningState.Next.PROVISION);
    assertThat(new ProvisioningState(dir.resolve("var/lib/kvprov")).next(VM))
        .as("without azure-init's directory")
        .isEqualTo(ProvisioningState.Next.PROVISION);

    Files.createDirectories(dir.resolve("var/lib/kvprov"));
    state.markReportedReady(VM);
    assertThat(state.next(VM)).isEqualTo(ProvisioningState.Next.NOTHING);
  }

  @Test
  void markers_areOwnerOnly_andNoTempFilesRemain() throws Exception {
    ProvisioningState state = new ProvisioningState(dir);

    state.markProvisioned(VM);
    state.markProvisioned(VM); // again: replaced, not failed

    Path marker = state.marker(VM, "provisioned");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(marker)))
        .isEqualTo("rw-------");
    try (var files = Files.list(dir)) {
      assertThat(files).containsExactly(marker);
    }
  }

  @Test
  void anUnknownVmId_getsNoMarker_neverUnknownReady() throws Exception {
    ProvisioningState state = new ProvisioningState(dir);
    VmId unknown = new VmId(VmId.UNKNOWN, "no SMBIOS");

    org.assertj.core.api.Assertions.assertThatThrownBy(() -> state.markReportedReady(unknown))
        .isInstanceOf(java.io.IOException.class)
        .hasMessage("there is no VM id to name it by (no SMBIOS)");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> state.markProvisioned(unknown))
        .isInstanceOf(java.io.IOException.class);
    try (var files = Files.list(dir)) {
      assertThat(files).isEmpty();
    }
  }

  @Test
  void withoutSmbios_theIdImdsGave_isRemembered_andSmbiosAlwaysWins() throws Exception {
    ProvisioningState state = new ProvisioningState(dir);
    VmId none = new VmId(VmId.UNKNOWN, "no SMBIOS");
    assertThat(state.vmId(none)).isEqualTo(none);

    state.remember(CLONE);

    assertThat(state.vmId(none).value()).isEqualTo(CLONE.value());
    assertThat(state.vmId(VM)).isEqualTo(VM);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("vm-id"))))
        .isEqualTo("rw-------");

    Files.writeString(dir.resolve("vm-id"), "00000000-0000-0000-0000-000000000000\n");
    assertThat(state.vmId(none)).as("a placeholder is no id").isEqualTo(none);
  }

  @Test
  void anUnknownVmId_alwaysProvisions_andClearForgets() throws Exception {
    ProvisioningState state = new ProvisioningState(dir);
    assertThat(state.next(new VmId(VmId.UNKNOWN, "unreadable")))
        .isEqualTo(ProvisioningState.Next.PROVISION);

    state.markProvisioned(VM);
    state.markReportedReady(VM);
    state.clear(VM);

    assertThat(state.next(VM)).isEqualTo(ProvisioningState.Next.PROVISION);
  }
}
