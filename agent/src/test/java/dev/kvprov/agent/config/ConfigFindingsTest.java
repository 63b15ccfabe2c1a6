package dev.kvprov.agent.config;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.kvprov.agent.config.ConfigFinding.Severity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One load finds every mistake of every file, each with its file, line and column. */
class ConfigFindingsTest {
  @TempDir Path root;

  private Path write(String relative, String text) throws IOException {
    return write(relative, text.getBytes(UTF_8));
  }

  private Path write(String relative, byte[] bytes) throws IOException {
    Path file = root.resolve(relative);
    Files.createDirectories(file.getParent());
    Files.write(file, bytes);
    return file;
  }

  private ConfigException failure(Optional<Path> explicit) {
    return catchThrowableOfType(ConfigException.class, () -> ConfigLoader.load(root, explicit));
  }

  private static ConfigFinding error(Path file, int line, int column, String message) {
    return new ConfigFinding(file, line, column, Severity.ERROR, message);
  }

  private static ConfigFinding warning(Path file, int line, int column, String message) {
    return new ConfigFinding(file, line, column, Severity.WARNING, message);
  }

  @Test
  void everyMistakeOfEveryFile_isFoundInOnePass_inReadingOrder() throws Exception {
    Path base =
        write(
            "etc/kvprov/kvprov.toml",
            """
            [imds]
            read_timeout_secs = "x"
            retry_interval_sec = 3

            [telemetry]
              record_budget = 5
            """);
    Path broken =
        write("etc/kvprov/kvprov.toml.d/50-net.toml", "[wireserver]\nprotocol = \"json\n");
    Path explicit = write("more.toml", "[wireserver]\nprotocol = \"soap\"\n");

    ConfigException e = failure(Optional.of(explicit));

    assertThat(e.findings())
        .containsExactly(
            error(
                base,
                2,
                1,
                "imds.read_timeout_secs = \"x\": expected a number of seconds (finite, not"
                    + " negative)"),
            warning(
                base,
                3,
                1,
                "unknown key 'imds.retry_interval_sec' (ignored);"
                    + " did you mean imds.retry_interval_secs?"),
            error(
                base,
                6,
                3,
                "telemetry.record_budget = 5: expected a whole number from 10 to 100000"),
            error(broken, 2, 17, "not valid TOML: newline not permitted here"),
            error(explicit, 2, 1, "wireserver.protocol = \"soap\": expected one of json, xml"));
    assertThat(e.files()).containsExactly(base, broken, explicit);
    assertThat(e)
        .hasMessage(
            base
                + ":2: imds.read_timeout_secs = \"x\": expected a number of seconds (finite, not"
                + " negative) (and 3 more errors)");
  }

  @Test
  void aSecondError_isCountedInTheSingular() throws Exception {
    Path file = write("etc/kvprov/kvprov.toml", "[imds]\nendpoint = 1\nread_timeout_secs = -1\n");

    assertThat(failure(Optional.empty()))
        .hasMessage(
            file + ":2: imds.endpoint = 1: expected an http:// or https:// URL (and 1 more error)");
  }

  @Test
  void theParsersPosition_isTheLineAndColumnOfATomlSyntaxError() throws Exception {
    // What jackson-dataformat-toml reports, checked: a newer version that stops doing so fails
    // here.
    String[][] cases = {
      {"[imds\n", "1:6", "newline not permitted here"},
      {"# comment\n\n[imds]\nread_timeout_secs = \n", "4:21", "newline not permitted here"},
      {"[ssh]\n  query_sshd_config = tru\n", "2:23", "unknown token"},
      {"[imds]\nread_timeout_secs = 5\n[imds]\n", "3:6", "table redefined"},
      {"[user]\ngroups = [\"adm\",\n  \"sudo\"\n  \"video\"]\n", "4:3", "more data after value"},
      {"[imds]\nendpoint = \"http://x\\q\"\n", "2:21", "unknown escape sequence"},
    };
    for (String[] c : cases) {
      Path file = write("etc/kvprov/kvprov.toml", c[0]);

      assertThat(failure(Optional.empty()).findings())
          .as(c[0])
          .singleElement()
          .satisfies(
              f -> {
                assertThat(f.line() + ":" + f.column()).isEqualTo(c[1]);
                assertThat(f.toString())
                    .startsWith(file + ":" + c[1] + ": not valid TOML: " + c[2]);
              });
    }
  }

  @Test
  void aParserLimit_isSaidWithoutTheJavaMethodThatSetsIt() throws Exception {
    // Jackson gives no position for its limits.
    Path file =
        write(
            "etc/kvprov/kvprov.toml",
            "[user]\ngroups = " + "[".repeat(1001) + "]".repeat(1001) + "\n");

    assertThat(failure(Optional.empty()).findings())
        .containsExactly(
            error(
                file,
                0,
                0,
                "not valid TOML: document nesting depth (1001) exceeds the maximum allowed"
                    + " (1000)"));
  }

  @Test
  void aKeySetTwice_isNamedWhereItIsSetAgain_notWhereTheParserNoticed() throws Exception {
    // The parser reports a repeated key where the next statement begins: line 10 here.
    Path file =
        write(
            "etc/kvprov/kvprov.toml",
            "[imds]\nread_timeout_secs = 5\nnote = \"\"\"\nread_timeout_secs = 1\n\"\"\"\n"
                + "# not a string: '''\n"
                + "  read_timeout_secs = 7 # again\n\n# later\ntotal_retry_timeout_secs = 9\n");

    assertThat(failure(Optional.empty()).findings())
        .containsExactly(
            error(
                file,
                7,
                3,
                "not valid TOML: imds.read_timeout_secs is set twice (first on line 2)"));
  }

  @Test
  void aFileThatIsNotUtf8_isAnError_whereTheFirstBadByteIs() throws Exception {
    Path file =
        write(
            "etc/kvprov/kvprov.toml",
            new byte[] {'[', 's', 's', 'h', ']', '\n', '#', ' ', (byte) 0xFC, 'b', 'e', 'r', '\n'});

    assertThat(failure(Optional.empty()).findings())
        .containsExactly(error(file, 2, 3, "not UTF-8 text, which TOML must be"));
  }

  @Test
  void anOversizedOrUnreadableFile_isAFinding_andTheOtherFilesAreStillRead() throws Exception {
    Path big =
        write("etc/kvprov/kvprov.toml.d/10-big.toml", new byte[ConfigLoader.MAX_FILE_BYTES + 1]);
    Path typo = write("etc/kvprov/kvprov.toml.d/20-typo.toml", "[imds]\nread_timeout_secs = -1\n");
    // Readable by name, but reading fails (EIO), even for root, who may read any file.
    Path unreadable = Path.of("/proc/self/mem");

    ConfigException e = failure(Optional.of(unreadable));

    assertThat(e.findings())
        .containsExactly(
            error(big, 0, 0, "larger than 1048576 bytes; not a configuration file"),
            error(
                typo,
                2,
                1,
                "imds.read_timeout_secs = -1: expected a number of seconds (finite, not negative)"),
            error(unreadable, 0, 0, "cannot read: Input/output error"));
  }

  @Test
  void aConfigDirectoryWithoutTomlFiles_isAnError_butNoFilesAtTheDefaultPlace_areTheDefaults()
      throws Exception {
    Path empty = Files.createDirectories(root.resolve("conf"));
    write("conf/kvprov.toml.bak", "[imds]\nread_timeout_secs = 1\n");

    ConfigException e = failure(Optional.of(empty));

    assertThat(e.findings())
        .containsExactly(error(empty, 0, 0, "no configuration files found (no *.toml here)"));
    assertThat(e.files()).isEmpty();
    assertThat(e).hasMessage(empty + ": no configuration files found (no *.toml here)");

    AgentConfig defaults = ConfigLoader.load(root, Optional.empty());
    assertThat(defaults.files()).isEmpty();
    assertThat(defaults.warnings()).isEmpty();
  }

  @Test
  void aRejectedValue_isShownCutShort_andWithoutAUrlsPassword() throws Exception {
    write(
        "etc/kvprov/kvprov.toml",
        "[imds]\nendpoint = \"ftp://admin:hunter2@proxy.example\"\n"
            + "[user]\ngroups = \""
            + "x".repeat(500)
            + "\"\n");

    ConfigException e = failure(Optional.empty());

    assertThat(e.findings())
        .extracting(ConfigFinding::message)
        .containsExactly(
            "imds.endpoint = \"ftp://...@proxy.example\": expected an http:// or https:// URL",
            "user.groups = \"" + "x".repeat(39) + "...: expected a list of strings");
    assertThat(e.findings().toString()).doesNotContain("hunter2");
  }

  @Test
  void aSectionWrittenAsAKey_orAKeyAtTheTop_isAWarning_withTheNearestKeys() throws Exception {
    Path file =
        write(
            "etc/kvprov/kvprov.toml",
            "imds = 5\nread_timeout_secs = 9\n[imsd]\nx = 1\n[[users]]\nname = \"a\"\n");

    AgentConfig config = ConfigLoader.load(root, Optional.empty());

    assertThat(config.warnings())
        .containsExactly(
            warning(file, 1, 1, "'imds' is a section, not a key (ignored); see [imds]"),
            warning(
                file,
                2,
                1,
                "unknown key 'read_timeout_secs' (ignored);"
                    + " did you mean imds.read_timeout_secs or wireserver.read_timeout_secs?"),
            warning(file, 3, 1, "unknown section [imsd] (ignored); did you mean [imds]?"),
            warning(file, 5, 1, "unknown key 'users' (ignored)"));
    assertThat(config.imds().readTimeout()).isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void aFinding_readsAsCompilersWriteThem() {
    Path file = Path.of("/etc/kvprov/kvprov.toml");

    assertThat(error(file, 7, 3, "m")).hasToString("/etc/kvprov/kvprov.toml:7:3: m");
    assertThat(error(file, 7, 0, "m")).hasToString("/etc/kvprov/kvprov.toml:7: m");
    assertThat(warning(file, 0, 0, "m")).hasToString("/etc/kvprov/kvprov.toml: m");
    assertThatThrownBy(() -> error(file, 0, 3, "m")).isInstanceOf(IllegalArgumentException.class);
  }
}
