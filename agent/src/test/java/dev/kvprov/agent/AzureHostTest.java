package dev.kvprov.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The refusal of {@code kvprov provision} on the running system, from /sys and /proc as given. */
class AzureHostTest {
  @TempDir Path dir;

  private Path sys(String tag) throws Exception {
    Path id = Files.createDirectories(dir.resolve("sys/class/dmi/id"));
    if (tag != null) {
      Files.writeString(id.resolve("chassis_asset_tag"), tag + "\n");
    }
    return dir.resolve("sys");
  }

  private Path proc(String uids) throws Exception {
    Path self = Files.createDirectories(dir.resolve("proc/self"));
    Files.writeString(
        self.resolve("status"), "Name:\tjava\nUid:\t" + uids + "\nGid:\t0\t0\t0\t0\n");
    return dir.resolve("proc");
  }

  @Test
  void rootOnAzure_mayProvision() throws Exception {
    assertThat(AzureHost.refusal(sys(AzureHost.AZURE_ASSET_TAG), proc("0\t0\t0\t0"))).isEmpty();
  }

  @Test
  void anOrdinaryUser_isRefused_evenOnAzure() throws Exception {
    assertThat(AzureHost.refusal(sys(AzureHost.AZURE_ASSET_TAG), proc("1000\t1000\t1000\t1000")))
        .contains(
            "provisioning the running system needs root; use --root DIR to provision an image");
  }

  @Test
  void aMachineOffAzure_isRefused_sayingWhatItIs() throws Exception {
    assertThat(AzureHost.refusal(sys("None"), proc("0\t0\t0\t0")))
        .contains(
            "this machine is not an Azure VM (its chassis asset tag is 'None'); use --force to"
                + " provision it anyway");
    Files.delete(dir.resolve("sys/class/dmi/id/chassis_asset_tag"));
    assertThat(AzureHost.refusal(dir.resolve("sys"), dir.resolve("proc")).orElseThrow())
        .contains("its chassis asset tag is missing");
  }

  @Test
  void thisMachine_isNoAzureVm_soAPlainProvisionRefusesWithExit2() {
    // The build machine is not Azure: the real /sys says so, and nothing is attempted.
    org.junit.jupiter.api.Assumptions.assumeFalse(
        AzureHost.refusal(Path.of("/sys"), Path.of("/proc")).isEmpty(), "running on Azure");
    java.io.StringWriter err = new java.io.StringWriter();
    picocli.CommandLine cli = KvprovCommand.commandLine();
    cli.setErr(new java.io.PrintWriter(err, true));
    assertThat(cli.execute("provision")).isEqualTo(2);
    assertThat(err.toString()).startsWith("kvprov provision: ").contains("--force");
    // `--root /` is the running system all the same.
    assertThat(cli.execute("provision", "--root", "/")).isEqualTo(2);
  }
}
