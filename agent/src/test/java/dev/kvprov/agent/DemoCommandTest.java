package dev.kvprov.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The newcomer's first command, end to end, in a process of its own. */
class DemoCommandTest {
  @TempDir Path dir;

  private String[] demo(String scenario, String... more) throws Exception {
    java.util.List<String> argv =
        new java.util.ArrayList<>(
            java.util.List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName(),
                "demo",
                "--dir",
                dir.resolve(scenario).toString(),
                "--scenario",
                scenario));
    argv.addAll(java.util.List.of(more));
    ProcessBuilder builder = new ProcessBuilder(argv);
    Process process = builder.start();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Thread drain =
        new Thread(
            () -> {
              try {
                process.getErrorStream().transferTo(err);
              } catch (java.io.IOException ignored) {
                // the process ended
              }
            });
    drain.start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    process.waitFor();
    drain.join();
    return new String[] {
      String.valueOf(process.exitValue()), out, err.toString(StandardCharsets.UTF_8)
    };
  }

  @Test
  void ok_provisionsTheDemoRoot_andShowsTheTreeTheReportAndThePaths() throws Exception {
    String[] result = demo("ok");

    assertThat(result[0]).as(result[2]).isEqualTo("0");
    assertThat(result[1])
        .contains("== span tree, read back from the KVP pool")
        .containsPattern("\\+ *\\d+\\.\\d{3}s  provision  ok")
        .contains("provision.user  ok")
        .contains("result=success|agent=kvprov/0.1.0")
        .contains("json: {\"state\":\"Ready\"}")
        .contains("KVP pool:");
    assertThat(Files.readString(dir.resolve("ok/root/etc/passwd"))).contains("azureuser:");
    String pool =
        new String(
            Files.readAllBytes(dir.resolve("ok/root/var/lib/hyperv/.kvp_pool_1")),
            StandardCharsets.UTF_8);
    for (String output : new String[] {result[1], result[2], pool}) {
      assertThat(output).doesNotContain("never-log-me");
    }
    // The media kept for later readers, root's alone, without the password or the custom data;
    // the custom data beside it, decoded.
    Path state = dir.resolve("ok/root/var/lib/kvprov");
    String kept = Files.readString(state.resolve("ovf-env.xml"));
    assertThat(kept)
        .contains("<HostName>demo-vm</HostName>")
        .containsPattern("<UserPassword[^>]*/>")
        .containsPattern("<CustomData[^>]*/>")
        .doesNotContain("Demo-Passw0rd");
    assertThat(Files.readString(state.resolve("custom_data")))
        .startsWith("#cloud-config\n# kvprov demo: custom data");
    for (String name : new String[] {"ovf-env.xml", "custom_data"}) {
      assertThat(
              java.nio.file.attribute.PosixFilePermissions.toString(
                  Files.getPosixFilePermissions(state.resolve(name))))
          .isEqualTo("rw-------");
    }
    // And the password's canary is nowhere in the provisioned root.
    try (var files = Files.walk(dir.resolve("ok/root"))) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        assertThat(new String(Files.readAllBytes(file), StandardCharsets.UTF_8))
            .as(file.toString())
            .doesNotContain("never-log-me");
      }
    }
  }

  @Test
  void certificateKey_installsTheKeyTheGoalStatesCertificateHolds() throws Exception {
    String[] result = demo("certificate-key");

    assertThat(result[0]).as(result[2]).isEqualTo("0");
    assertThat(result[1]).containsPattern("wireserver\\.certificates  ok");
    assertThat(Files.readString(dir.resolve("certificate-key/media/ovf-env.xml")))
        .containsPattern("<Fingerprint>[0-9A-F]{40}</Fingerprint>\\s*<Path>");
    assertThat(
            Files.readAllLines(
                dir.resolve("certificate-key/root/home/azureuser/.ssh/authorized_keys")))
        .hasSize(2)
        .anySatisfy(line -> assertThat(line).startsWith("ssh-rsa AAAAB3NzaC1yc2E"));
  }

  @Test
  void portalKeys_installsBothKeysAsOneLineEach() throws Exception {
    String[] result = demo("portal-keys");

    assertThat(result[0]).as(result[2]).isEqualTo("0");
    assertThat(
            Files.readAllLines(dir.resolve("portal-keys/root/home/azureuser/.ssh/authorized_keys")))
        .hasSize(2)
        .allSatisfy(line -> assertThat(line).startsWith("ssh-rsa AAAAB3NzaC1yc2E"))
        .anySatisfy(line -> assertThat(line).endsWith(" deploy@pipeline"));
  }

  @Test
  void aFailureScenario_endsInSeconds_withTheFailureExitCodeAndReport() throws Exception {
    String[] result = demo("imds-down-no-media");

    assertThat(result[0]).as(result[1] + result[2]).isEqualTo("10");
    assertThat(result[1])
        .contains("imds.fetch  FAILED: no usable answer from IMDS")
        .contains("result=error|reason=Failed to fetch instance metadata")
        .contains("ProvisioningFailed");
  }

  @Test
  void networkDown_showsTheSnapshot_inTheTreeAndTheReport() throws Exception {
    String[] result = demo("network-down");

    assertThat(result[0]).as(result[1] + result[2]).isEqualTo("20");
    assertThat(result[1])
        .contains("network.snapshot  ok: links eth0 down 00:0d:3a:5e:21:07; addresses none;")
        .contains("|network=links eth0 down 00:0d:3a:5e:21:07; addresses none; route none;")
        .contains(", 3 d old; imds no answer (")
        .doesNotContain("json: {") // the platform heard nothing, and the demo says so
        .contains("== what the platform received\n  nothing: no report reached the simulated");
  }

  @Test
  void badMedia_refusesTheChosenField_beforeAnyChange_namingIt() throws Exception {
    String[] result = demo("bad-media", "--bad", "custom-data");

    assertThat(result[0]).as(result[1] + result[2]).isEqualTo("11");
    assertThat(result[1])
        .contains("provision.check  FAILED: custom data (CustomData) is not valid base64")
        .contains("result=error|reason=Provisioning data refused")
        .contains("ProvisioningFailed")
        .doesNotContain("never-log-me");
    assertThat(result[2]).doesNotContain("never-log-me");
    assertThat(Files.readString(dir.resolve("bad-media/root/etc/passwd")))
        .doesNotContain("azureuser:");
  }

  @Test
  void badMedia_imdssHostName_isRefusedAsData_notAsImdsFailing() throws Exception {
    String[] result = demo("bad-media", "--bad", "hostname");

    assertThat(result[0]).as(result[1] + result[2]).isEqualTo("11");
    assertThat(result[1])
        .contains("provision.check  FAILED: IMDS metadata rejected: computerName: host name")
        .contains("result=error|reason=Provisioning data refused")
        .contains("|step=check|")
        .doesNotContain("Failed to fetch instance metadata");
  }

  @Test
  void badMedia_imdssUserName_isRefusedAsData_namingIt() throws Exception {
    String[] result = demo("bad-media", "--bad", "user");

    assertThat(result[0]).as(result[1] + result[2]).isEqualTo("11");
    assertThat(result[1])
        .contains("provision.check  FAILED: user name 'sudo' is a system group")
        .contains("result=error|reason=Provisioning data refused")
        .contains("|step=check|");
  }

  @Test
  void gpa_asksTheStandInProxyAgent_andReportsItReady() throws Exception {
    String[] result = demo("gpa");

    assertThat(result[0]).as(result[1] + result[2]).isEqualTo("0");
    assertThat(result[1]).contains("provision.gpa  ok").contains("|gpa=ready|");
  }

  @Test
  void diagRecords_writesEveryStepInAzureInitsGrammarToo_andSaysHowToListThem() throws Exception {
    String[] result = demo("diag-records");

    assertThat(result[0]).as(result[2]).isEqualTo("0");
    Path pool = dir.resolve("diag-records/root/var/lib/hyperv/.kvp_pool_1");
    assertThat(result[1])
        .contains("provision.user  ok")
        .contains("DIAG records:     kvp list --writer azure-init-diag --file " + pool);
    java.util.List<String> keys =
        dev.kvprov.kvp.PoolFile.builder().file(pool).build().read().records().stream()
            .map(dev.kvprov.kvp.KvpRecord::key)
            .toList();
    assertThat(keys).anyMatch(k -> k.startsWith("DIAG|kvprov/0.1.0|" + DemoCommand.VM_ID + "|"));
    assertThat(keys.stream().filter(k -> k.matches("DIAG\\|[^|]*\\|[^|]*\\|start\\|.*\\|0")))
        .hasSameSizeAs(keys.stream().filter(k -> k.matches("kvprov-1\\|.*\\|start\\|.*")).toList());
  }

  @Test
  void aConfigurationError_isReportedToThePlatform_insteadOfLeavingItWaiting() throws Exception {
    String[] result = demo("config-error");

    assertThat(result[0]).as(result[2]).isEqualTo("2");
    assertThat(result[2])
        .contains("kvprov provision: error: ")
        .contains("50-image.toml:3:")
        .contains("imds.read_timeout_secs");
    assertThat(result[1])
        .contains("provision  FAILED: ")
        .containsPattern("result=error\\|reason=Configuration error in \\S+/50-image.toml:3\\|")
        .contains("50-image.toml:3: imds.read_timeout_secs")
        .contains("json: {\"state\":\"NotReady\"")
        .contains("ProvisioningFailed");
    assertThat(Files.readString(dir.resolve("config-error/root/etc/passwd")))
        .doesNotContain("azureuser:");
  }

  @Test
  void imdsDown_withMedia_provisionsFromTheMediaAlone_andSaysSo() throws Exception {
    String[] result = demo("imds-down");

    assertThat(result[0]).as(result[2]).isEqualTo("0");
    assertThat(result[2])
        .contains("IMDS gave no usable answer (")
        .contains("): provisioning from the provisioning media alone");
    assertThat(result[1])
        .contains("imds.fetch  FAILED: no usable answer from IMDS")
        .containsPattern("result=success\\|agent=kvprov/0\\.1\\.0\\|source=ovf\\|")
        .contains("json: {\"state\":\"Ready\"}")
        .contains("(try: kvp tree --file ")
        .doesNotContain("strings -n");
    assertThat(Files.readString(dir.resolve("imds-down/root/etc/passwd"))).contains("azureuser:");
    // what the agent logged is named for its step, as a reader of the pool sees it: no class name
    String pool =
        Files.readString(
            dir.resolve("imds-down/root/var/lib/hyperv/.kvp_pool_1"), StandardCharsets.ISO_8859_1);
    assertThat(pool).contains("provisioning from the provisioning media alone");
    assertThat(pool).doesNotContain("dev.kvprov.");
    assertThat(result[2]).doesNotContain("dev.kvprov.");
  }

  @Test
  void aPreprovisionedVm_waitsInOneSpan_thenIsReady() throws Exception {
    String[] result = demo("pps-running");

    assertThat(result[0]).as(result[2]).isEqualTo("0");
    assertThat(result[1])
        .containsPattern("pps\\.wait  ok")
        .contains("result=success|agent=kvprov/0.1.0");
    assertThat(result[1].lines().filter(l -> l.contains("json: {\"state\":\"Ready\"}"))).hasSize(2);
  }

  @Test
  void aSavableVm_waitsForItsNicToBeSwapped_thenIsReadyTwice() throws Exception {
    String[] result = demo("pps-savable");

    assertThat(result[0]).as(result[2]).isEqualTo("0");
    assertThat(result[1])
        .containsPattern("pps\\.nic_detach  ok")
        .containsPattern("pps\\.nic_attach  ok")
        .containsPattern("pps\\.wait  ok")
        .contains("result=success|agent=kvprov/0.1.0");
    assertThat(result[1].lines().filter(l -> l.contains("json: {\"state\":\"Ready\"}"))).hasSize(2);
  }
}
