package dev.kvprov.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.agent.sim.AzureSimulator;
import dev.kvprov.fixtures.Fixtures;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The {@code kvprov} commands as a user runs them, output captured. */
class KvprovCommandTest {
  @TempDir Path dir;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine cli = KvprovCommand.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    return cli.execute(args);
  }

  @Test
  void config_printsEveryValueWithItsOrigin() throws Exception {
    Path file = dir.resolve("etc/kvprov/kvprov.toml");
    Files.createDirectories(file.getParent());
    Files.writeString(file, "[imds]\ntotal_retry_timeout_secs = 42\n");

    assertThat(run("config", "--root", dir.toString())).isZero();

    assertThat(out.toString())
        .containsPattern(
            "imds\\.total_retry_timeout_secs = 42\\.0 +# "
                + java.util.regex.Pattern.quote(file + ":2"))
        .containsPattern("wireserver\\.protocol = \"json\" +# default");
  }

  @Test
  void config_withoutKvprovsFiles_readsAzureInits_andSaysSo() throws Exception {
    Path file = dir.resolve("etc/azure-init/azure-init.toml");
    Files.createDirectories(file.getParent());
    Files.writeString(file, "[imds]\ntotal_retry_timeout_secs = 42\n");

    assertThat(run("config", "--root", dir.toString())).isZero();
    assertThat(out.toString())
        .startsWith(
            "# no configuration files in "
                + dir.resolve("etc/kvprov")
                + ": azure-init's were read instead\n")
        .containsPattern(
            "imds\\.total_retry_timeout_secs = 42\\.0 +# "
                + java.util.regex.Pattern.quote(file + ":2"));

    assertThat(run("config", "--check", "--root", dir.toString())).isZero();
    assertThat(out.toString())
        .contains(
            "configuration OK (1 file; no configuration files in "
                + dir.resolve("etc/kvprov")
                + ": azure-init's were read instead)");
  }

  @Test
  void provisionGroups_takesAzureInitsCommaSeparatedAndRepeatedForm() {
    ProvisionCommand command =
        CommandLine.populateCommand(
            new ProvisionCommand(), "--groups", "adm,users", "--groups", "wheel");

    assertThat(ProvisionCommand.given(command.groups)).contains(List.of("adm", "users", "wheel"));
    assertThat(ProvisionCommand.given(null)).as("not given: user.groups").isEmpty();
    ProvisionCommand none = CommandLine.populateCommand(new ProvisionCommand(), "--groups", "");
    assertThat(ProvisionCommand.given(none.groups)).contains(List.of());
  }

  @Test
  void configCheck_failsOnAnError_namingFileAndKey_andPassesWithWarnings() throws Exception {
    Path bad = dir.resolve("bad.toml");
    Files.writeString(bad, "[imds]\nread_timeout_secs = -5\n");
    assertThat(run("config", "--check", "--root", dir.toString(), "--config", bad.toString()))
        .isEqualTo(1);
    assertThat(err.toString()).contains(bad + ":2:1: imds.read_timeout_secs = -5");

    Path typo = dir.resolve("typo.toml");
    Files.writeString(typo, "[imds]\nread_timout_secs = 5\n");
    assertThat(run("config", "--check", "--root", dir.toString(), "--config", typo.toString()))
        .isZero();
    assertThat(out.toString()).contains("configuration OK (1 file; 1 warning)");
    assertThat(err.toString())
        .contains(typo + ":2:1: unknown key 'imds.read_timout_secs' (ignored)");
  }

  @Test
  void configCheck_findsFourMistakesInTwoFiles_inOneRun() throws Exception {
    Path base = dir.resolve("etc/kvprov/kvprov.toml");
    Path dropIn = dir.resolve("etc/kvprov/kvprov.toml.d/50-net.toml");
    Files.createDirectories(dropIn.getParent());
    Files.writeString(
        base,
        """
        [imds]
        read_timeout_secs = "x"
        retry_interval_sec = 3

        [telemetry]
        record_budget = 5
        """);
    Files.writeString(dropIn, "[wireserver]\nprotocol = \"json\n");

    assertThat(run("config", "--check", "--root", dir.toString())).isEqualTo(1);

    assertThat(err.toString().lines())
        .containsExactly(
            "kvprov config: error: "
                + base
                + ":2:1: imds.read_timeout_secs = \"x\": expected a number of seconds (finite,"
                + " not negative)",
            "kvprov config: warning: "
                + base
                + ":3:1: unknown key 'imds.retry_interval_sec' (ignored);"
                + " did you mean imds.retry_interval_secs?",
            "kvprov config: error: "
                + base
                + ":6:1: telemetry.record_budget = 5: expected a whole number from 10 to 100000",
            "kvprov config: error: " + dropIn + ":2:17: not valid TOML: newline not permitted here",
            "3 errors, 1 warning in 2 files");
    assertThat(out.toString()).isEmpty();
  }

  @Test
  void configCheck_ofADirectoryWithoutTomlFiles_isAnError() throws Exception {
    Path etc = Files.createDirectories(dir.resolve("etc"));
    Files.writeString(etc.resolve("hosts"), "127.0.0.1 localhost\n");

    assertThat(run("config", "--check", "--root", dir.toString(), "--config", etc.toString()))
        .isEqualTo(1);

    assertThat(err.toString().lines())
        .containsExactly(
            "kvprov config: error: " + etc + ": no configuration files found (no *.toml here)",
            "1 error; no configuration file read");
  }

  @Test
  void configCheck_withNoFileAtTheDefaultPlace_saysTheDefaultsApply() {
    assertThat(run("config", "--check", "--root", dir.toString())).isZero();

    assertThat(out.toString().lines())
        .containsExactly(
            "configuration OK: no configuration files found in "
                + dir.resolve("etc/kvprov")
                + " (defaults apply)");
    assertThat(err.toString()).isEmpty();
  }

  @Test
  void configHelp_saysTheExitCodes() {
    assertThat(run("config", "--help")).isZero();

    assertThat(out.toString().replaceAll("\\s+", " "))
        .contains(
            " Exit status: 0 configuration OK (warnings allowed); 1 errors found; 2 usage error.");
  }

  @Test
  void simulateAndDemoHelp_listThePortalKeysScenario() {
    for (String command : new String[] {"simulate", "demo"}) {
      assertThat(run(command, "--help")).isZero();
    }

    assertThat(out.toString().split("portal-keys", -1)).hasSize(3);
  }

  @Test
  void fetch_readsImdsAndTheMedia_neverPrintingThePassword() throws Exception {
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      Path config = dir.resolve("sim.toml");
      Files.writeString(config, simulator.configSnippet());
      Path media = Files.createDirectories(dir.resolve("media"));
      Files.copy(Fixtures.path(Fixtures.OVF_ENV), media.resolve("ovf-env.xml"));

      int exit =
          run(
              "fetch",
              "--root",
              dir.toString(),
              "--config",
              config.toString(),
              "--media-dir",
              media.toString(),
              "--kvp-dir",
              dir.resolve("kvp").toString());

      assertThat(exit).as(err.toString()).isZero();
      assertThat(out.toString())
          .contains("admin azureuser, host sim-vm")
          .contains("password given (27 chars, not shown)");
      String pool =
          new String(
              Files.readAllBytes(dir.resolve("kvp/.kvp_pool_1")),
              java.nio.charset.StandardCharsets.UTF_8);
      assertThat(pool)
          .contains("|config.load|")
          .contains("|imds.fetch|")
          .contains("|media.read_ovf|");
      for (String output : new String[] {out.toString(), err.toString(), pool}) {
        assertThat(output).doesNotContain("never-log-me");
      }
    }
  }

  @Test
  void anUnknownScenario_isAUsageError_listingTheKnownOnes() {
    assertThat(run("simulate", "--scenario", "meteor-strike")).isEqualTo(2);
    assertThat(err.toString())
        .contains("unknown scenario 'meteor-strike'; known: ok, slow-imds, flaky-imds");
  }

  @Test
  void version_andHelp() {
    assertThat(run("--version")).isZero();
    assertThat(out.toString()).contains("kvprov 0.1.0");
    assertThat(run("--help")).isZero();
    assertThat(out.toString()).contains("Examples:").contains("simulate");
  }
}
