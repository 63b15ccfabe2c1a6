package dev.kvprov.agent;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvprov.agent.sim.AzureSimulator;
import dev.kvprov.agent.sim.Scenario;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code kvprov status} after real runs against the simulator. */
class StatusCommandTest {
  static final String VM = TestVm.ID;

  @TempDir Path dir;
  private Path root;
  private Path media;
  private StringWriter out;
  private StringWriter err;

  @BeforeEach
  void setUp() throws Exception {
    root = TestVm.root(dir);
    media = TestVm.media(dir);
  }

  private void provision(Scenario scenario) throws Exception {
    try (AzureSimulator simulator = AzureSimulator.builder().scenario(scenario).start()) {
      Path config = dir.resolve("kvprov.toml");
      Files.writeString(
          config,
          simulator
              .configSnippet()
              .replace(
                  "[imds]\n", "[imds]\ntotal_retry_timeout_secs = 1\nretry_interval_secs = 0.1\n"));
      ConfigOptions options = new ConfigOptions();
      options.root = root;
      options.config = config;
      ProvisionCommand.run(
          options, media, new PrintStream(new ByteArrayOutputStream(), true, UTF_8));
    }
  }

  private int status(String... args) {
    out = new StringWriter();
    err = new StringWriter();
    CommandLine cli = KvprovCommand.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    String[] argv = new String[args.length + 3];
    argv[0] = "status";
    System.arraycopy(args, 0, argv, 1, args.length);
    argv[args.length + 1] = "--root";
    argv[args.length + 2] = root.toString();
    return cli.execute(argv);
  }

  @Test
  void beforeAnyRun_notStarted_exit4() {
    assertThat(status()).isEqualTo(4);
    assertThat(out.toString()).startsWith("status:   not started\n").contains("markers:  none");
  }

  @Test
  void afterAGoodRun_succeeded_withTheMarkers() throws Exception {
    provision(Scenario.OK);

    assertThat(status()).as(err.toString()).isZero();
    assertThat(out.toString())
        .startsWith("status:   succeeded\nat:       ")
        .contains("report:   by kvprov/")
        .contains("markers:  " + VM + ".provisioned, " + VM + ".ready");
  }

  @Test
  void afterAFailedRun_failed_withTheReason_inJsonToo() throws Exception {
    Files.delete(media.resolve("ovf-env.xml"));
    provision(Scenario.IMDS_DOWN_NO_MEDIA);

    assertThat(status()).isEqualTo(1);
    assertThat(out.toString())
        .startsWith("status:   failed\nreason:   Failed to fetch instance metadata\n");
    assertThat(status("--json", "--wait", "--timeout", "10m")).isEqualTo(1);
    JsonNode json = new ObjectMapper().readTree(out.toString());
    assertThat(json.get("status").asText()).isEqualTo("failed");
    assertThat(json.get("report").get("result").asText()).isEqualTo("error");
    assertThat(json.get("markers")).isEmpty();
  }

  @Test
  void waitingOnARunThatNeverComes_givesUpAtTheTimeout() {
    assertThat(status("--wait", "--timeout", "300ms", "--interval", "100ms")).isEqualTo(4);
    assertThat(status("--timeout", "1s")).isEqualTo(2);
    assertThat(err.toString()).contains("--timeout goes with --wait");
    assertThat(status("--wait", "--interval", "0")).isEqualTo(2);
    assertThat(status("--wait", "--timeout", "0.5")).isEqualTo(2);
    assertThat(err.toString()).contains("'0.5' is not a duration: give e.g. 200ms, 30s, 5m or 1h");
  }

  @Test
  void aRootThatIsNotThere_isExit3() throws Exception {
    Files.walk(root).sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    assertThat(status()).isEqualTo(3);
    assertThat(err.toString()).isEqualTo("kvprov status: " + root + ": no such directory\n");
  }
}
