package dev.kvprov.agent.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
  @TempDir Path root;

  private Path write(String relative, String text) throws IOException {
    return write(root, relative, text);
  }

  /** {@code text} as the file {@code relative} under {@code root}, its directories made. */
  static Path write(Path root, String relative, String text) throws IOException {
    Path file = root.resolve(relative);
    Files.createDirectories(file.getParent());
    Files.writeString(file, text);
    return file;
  }

  @Test
  void noFiles_givesTheDefaults_eachFromDefault() throws Exception {
    AgentConfig config = ConfigLoader.load(root, Optional.empty());

    assertThat(config.imds().totalTimeout()).isEqualTo(Duration.ofSeconds(300));
    assertThat(config.wireserver().protocol()).isEqualTo("json");
    assertThat(config.mediaDevices()).containsExactly("/dev/sr0");
    assertThat(config.settings()).allMatch(s -> s.origin().equals("default"));
    assertThat(config.warnings()).isEmpty();
  }

  @Test
  void anAzureInitConfiguration_worksUnchanged() throws Exception {
    write(
        "etc/kvprov/kvprov.toml",
        """
        [ssh]
        authorized_keys_path = ".ssh/authorized_keys"
        query_sshd_config = true

        [hostname_provisioners]
        backends = ["hostnamectl"]

        [user_provisioners]
        backends = ["useradd"]

        [password_provisioners]
        backends = ["passwd"]

        [imds]
        connection_timeout_secs = 2.0
        read_timeout_secs = 60
        total_retry_timeout_secs = 300

        [provisioning_media]
        enable = true

        [azure_proxy_agent]
        enable = true

        [wireserver]
        connection_timeout_secs = 2.0
        read_timeout_secs = 60
        total_retry_timeout_secs = 1200

        [telemetry]
        kvp_diagnostics = true
        """);

    AgentConfig config = ConfigLoader.load(root, Optional.empty());

    assertThat(config.warnings()).isEmpty();
    assertThat(config.imds().readTimeout()).isEqualTo(Duration.ofSeconds(60));
    assertThat(config.wireserver().totalTimeout()).isEqualTo(Duration.ofMinutes(20));
  }

  @Test
  void dropInsApplyInLexicalOrder_thenConfig_laterWinningKeyByKey_withOrigins() throws Exception {
    write(
        "etc/kvprov/kvprov.toml",
        "[imds]\ntotal_retry_timeout_secs = 100\nread_timeout_secs = 5\n");
    write("etc/kvprov/kvprov.toml.d/20-b.toml", "[imds]\ntotal_retry_timeout_secs = 200\n");
    Path a =
        write("etc/kvprov/kvprov.toml.d/10-a.toml", "[imds]\ntotal_retry_timeout_secs = 150\n");
    write("etc/kvprov/kvprov.toml.d/notes.txt", "[imds]\ntotal_retry_timeout_secs = 999\n");
    Path explicit = write("override.toml", "\n[wireserver]\nprotocol = \"XML\"\n");

    AgentConfig config = ConfigLoader.load(root, Optional.of(explicit));

    assertThat(config.imds().totalTimeout()).isEqualTo(Duration.ofSeconds(200));
    assertThat(config.imds().readTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(config.wireserver().protocol()).isEqualTo("xml");
    assertThat(origin(config, "imds.total_retry_timeout_secs"))
        .isEqualTo(root.resolve("etc/kvprov/kvprov.toml.d/20-b.toml") + ":2");
    assertThat(origin(config, "imds.read_timeout_secs"))
        .isEqualTo(root.resolve("etc/kvprov/kvprov.toml") + ":3");
    assertThat(origin(config, "wireserver.protocol")).isEqualTo(explicit + ":3");
    assertThat(a).exists();
  }

  @Test
  void aConfigDirectory_isReadLikeTheDropInDirectory() throws Exception {
    write("custom/02.toml", "[imds]\ntotal_retry_timeout_secs = 2\n");
    write("custom/01.toml", "[imds]\ntotal_retry_timeout_secs = 1\n");

    AgentConfig config = ConfigLoader.load(root, Optional.of(root.resolve("custom")));

    assertThat(config.imds().totalTimeout()).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void anUnknownKey_isAWarningNamingFileAndLine_andTheRestStillApplies() throws Exception {
    Path file =
        write(
            "etc/kvprov/kvprov.toml.d/50-typo.toml",
            "# a typo must not brick a boot\n[imds]\ntotal_retry_timout_secs = 10\nread_timeout_secs = 7\n\n[nonsense]\nx = 1\n");

    AgentConfig config = ConfigLoader.load(root, Optional.empty());

    assertThat(config.warnings())
        .map(ConfigFinding::toString)
        .containsExactly(
            file
                + ":3:1: unknown key 'imds.total_retry_timout_secs' (ignored);"
                + " did you mean imds.total_retry_timeout_secs?",
            file + ":6:1: unknown section [nonsense] (ignored)");
    assertThat(config.imds().readTimeout()).isEqualTo(Duration.ofSeconds(7));
  }

  @Test
  void invalidValues_areErrorsNamingFileKeyAndWhatIsAccepted() throws Exception {
    for (String[] bad :
        List.of(
            new String[] {
              "[imds]\ntotal_retry_timeout_secs = -1\n",
              "imds.total_retry_timeout_secs = -1: expected a number of seconds (finite, not negative)"
            },
            new String[] {
              "[imds]\nread_timeout_secs = nan\n",
              "imds.read_timeout_secs = \"NaN\": expected a number of seconds"
            },
            new String[] {
              "[user_provisioners]\nbackends = [\"adduser\"]\n",
              "expected a non-empty list of useradd"
            },
            new String[] {
              "[ssh]\nquery_sshd_config = \"not_a_boolean\"\n",
              "ssh.query_sshd_config = \"not_a_boolean\": expected true or false"
            },
            new String[] {"[wireserver]\nprotocol = \"soap\"\n", "expected one of json, xml"},
            new String[] {
              "[imds]\nendpoint = \"ftp://x\"\n", "expected an http:// or https:// URL"
            },
            new String[] {
              "[ssh]\nauthorized_keys_dir = \"../../etc/sudoers.d\"\n",
              "expected a directory inside the home"
            },
            new String[] {
              "[ssh]\nauthorized_keys_dir = \"/etc/ssh/keys.d\"\n",
              "expected a directory inside the home"
            },
            new String[] {"[ssh]\nauthorized_keys_dir = \".\"\n", "expected a directory inside"},
            new String[] {
              "[ssh]\nsshd_drop_in = \"../sshd_config\"\n", "expected a file name ending in .conf"
            },
            new String[] {
              "[kvp]\nformats = [\"diag\"]\n",
              "kvp.formats = [\"diag\"]: expected a list of \"kvprov\" and \"diag\" that holds"
                  + " \"kvprov\""
            },
            new String[] {
              "[kvp]\nformats = [\"kvprov\", \"json\"]\n",
              "expected a list of \"kvprov\" and \"diag\""
            })) {
      Path file = write("etc/kvprov/kvprov.toml", bad[0]);

      assertThatThrownBy(() -> ConfigLoader.load(root, Optional.empty()))
          .isInstanceOf(ConfigException.class)
          .hasMessageStartingWith(file + ":2: ")
          .hasMessageContaining(bad[1])
          .satisfies(
              e ->
                  assertThat(((ConfigException) e).findings())
                      .singleElement()
                      .satisfies(
                          f -> {
                            assertThat(f.isError()).isTrue();
                            assertThat(f.toString()).startsWith(file + ":2:1: ").contains(bad[1]);
                          }));
    }
  }

  @Test
  void kvpFormats_areKvprovsAlone_byDefault_andDiagRecordsWhenAskedFor() throws Exception {
    assertThat(ConfigLoader.load(root, Optional.empty()).telemetry().diagRecords()).isFalse();

    write("etc/kvprov/kvprov.toml", "[kvp]\nformats = [\"kvprov\", \"diag\"]\n");

    AgentConfig config = ConfigLoader.load(root, Optional.empty());
    assertThat(config.warnings()).isEmpty();
    assertThat(config.telemetry().diagRecords()).isTrue();
  }

  @Test
  void brokenTomlOrAMissingConfigPath_areErrors() throws Exception {
    Path file = write("etc/kvprov/kvprov.toml", "[imds\n");
    assertThatThrownBy(() -> ConfigLoader.load(root, Optional.empty()))
        .isInstanceOf(ConfigException.class)
        .hasMessage(file + ":1: not valid TOML: newline not permitted here");
    Files.delete(file);

    assertThatThrownBy(() -> ConfigLoader.load(root, Optional.of(root.resolve("missing.toml"))))
        .hasMessage(
            root.resolve("missing.toml") + ": no such file or directory (given with --config)");
  }

  private static String origin(AgentConfig config, String key) {
    return config.settings().stream()
        .filter(s -> s.key().equals(key))
        .findFirst()
        .orElseThrow()
        .origin();
  }
}
