package dev.kvprov.debian;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The units in {@code systemd/}, without root: {@code systemd-analyze verify} on each (its launcher
 * replaced by a stub, since kvprov is not installed here), and the Azure check in {@code
 * ExecCondition} run as the shell would run it. {@link PackageIT} verifies them again installed.
 */
class UnitFileTest {
  static final Path UNITS = Path.of("../systemd");
  static final Path SYSTEMD_ANALYZE = Path.of("/usr/bin/systemd-analyze");

  @TempDir Path dir;

  private static String run(List<String> command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return p.exitValue() + ":" + out;
  }

  private static List<Path> units() throws Exception {
    try (var files = Files.list(UNITS)) {
      return files.filter(f -> f.toString().endsWith(".service")).sorted().toList();
    }
  }

  @Test
  void everyUnit_verifies() throws Exception {
    if (!Files.isExecutable(SYSTEMD_ANALYZE)) {
      if (System.getenv("KVPROV_REQUIRE_PACKAGE_TEST") != null) {
        throw new AssertionError("no systemd-analyze, and KVPROV_REQUIRE_PACKAGE_TEST is set");
      }
      Assumptions.abort("no systemd-analyze on this machine: the units are not verified here");
    }
    Path stub = dir.resolve("kvprov");
    Files.writeString(stub, "#!/bin/sh\nexit 0\n");
    stub.toFile().setExecutable(true);
    List<String> command = new ArrayList<>(List.of(SYSTEMD_ANALYZE.toString(), "verify"));
    for (Path unit : units()) {
      Path copy = dir.resolve(unit.getFileName());
      Files.writeString(copy, Files.readString(unit).replace("/usr/bin/kvprov", stub.toString()));
      command.add(copy.toString());
    }

    assertThat(run(command)).isEqualTo("0:");
  }

  @Test
  void theAzureCheck_passesOnAzuresAssetTag_only() throws Exception {
    String unit = Files.readString(UNITS.resolve("kvprov.service"));
    String condition =
        unit.lines().filter(l -> l.startsWith("ExecCondition=")).findFirst().orElseThrow();
    String script =
        condition
            .replaceFirst("^ExecCondition=/bin/sh -c '", "")
            .replaceFirst("'$", "")
            .replace("$$", "$")
            .replace("/sys/class/dmi/id/chassis_asset_tag", dir.resolve("tag").toString());

    Files.writeString(dir.resolve("tag"), "7783-7084-3265-9085-8269-3286-77\n");
    assertThat(run(List.of("/bin/sh", "-c", script))).isEqualTo("0:");
    Files.writeString(dir.resolve("tag"), "No Asset Tag\n");
    assertThat(run(List.of("/bin/sh", "-c", script))).startsWith("1:");
    Files.delete(dir.resolve("tag"));
    assertThat(run(List.of("/bin/sh", "-c", script))).doesNotStartWith("0:");
  }

  @Test
  void aOneshotUnit_letsItsMainProcessExtendTheStartTimeout_whileAPoolWaits() throws Exception {
    List<String> service =
        Files.readString(UNITS.resolve("kvprov.service"))
            .lines()
            .dropWhile(l -> !l.equals("[Service]"))
            .takeWhile(l -> !l.equals("[Install]"))
            .toList();

    // systemd drops a oneshot unit's notifications unless NotifyAccess= lets them in: without
    // it, EXTEND_TIMEOUT_USEC= is ignored and a pool VM is killed at TimeoutStartSec=.
    assertThat(service).contains("Type=oneshot", "NotifyAccess=main", "TimeoutStartSec=26min");
    assertThat(service)
        .anyMatch(l -> l.startsWith("RestrictAddressFamilies=") && l.contains("AF_UNIX"));
  }
}
