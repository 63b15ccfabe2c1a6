package dev.kvprov.agent.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An image moving from azure-init: its configuration files are read when kvprov's own are absent,
 * and each of its keys has an effect on kvprov or a warning saying why it cannot.
 */
class AzureInitConfigTest {
  @TempDir Path root;

  private Path write(String relative, String text) throws Exception {
    return ConfigLoaderTest.write(root, relative, text);
  }

  private static String example() throws Exception {
    try (var in = AzureInitConfigTest.class.getResourceAsStream("/azure-init/azure-init.toml")) {
      return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  @Test
  void azureInitsExample_everyKeyHasItsEffect_orAWarningNamingIt() throws Exception {
    Path file = write("etc/azure-init/azure-init.toml", example());

    AgentConfig config = ConfigLoader.load(root, Optional.empty());

    assertThat(config.files()).containsExactly(file);
    assertThat(config.readAzureInitFiles()).isTrue();
    // ssh
    assertThat(config.authorizedKeysPath()).isEqualTo(".ssh/keys_from_azure_init");
    assertThat(config.querySshdConfig()).isFalse();
    assertThat(config.configureSshdPasswordAuthentication()).isFalse();
    // the backends
    assertThat(config.hostnameBackends()).containsExactly("hostnamectl");
    assertThat(config.userBackends()).containsExactly("useradd");
    assertThat(config.passwordBackends()).containsExactly("passwd");
    // imds: azure-init's request_timeout_secs is kvprov's read timeout
    AgentConfig.Imds imds = config.imds();
    assertThat(imds.connectTimeout()).isEqualTo(Duration.ofMillis(7500));
    assertThat(imds.readTimeout()).isEqualTo(Duration.ofSeconds(45));
    assertThat(imds.retryInterval()).isEqualTo(Duration.ofSeconds(3));
    assertThat(imds.totalTimeout()).isEqualTo(Duration.ofSeconds(120));
    assertThat(config.mediaEnabled()).isFalse();
    // wireserver: the health endpoint's host is the wireserver's
    AgentConfig.Wireserver wireserver = config.wireserver();
    assertThat(wireserver.endpoint()).isEqualTo(URI.create("http://10.1.2.3:8080"));
    assertThat(config.wireserverConfigured()).isTrue();
    assertThat(wireserver.connectTimeout()).isEqualTo(Duration.ofSeconds(4));
    assertThat(wireserver.readTimeout()).isEqualTo(Duration.ofSeconds(33));
    assertThat(wireserver.totalTimeout()).isEqualTo(Duration.ofSeconds(900));
    assertThat(config.telemetry().kvp()).isFalse();
    assertThat(config.azureInitDataDirectory()).isEqualTo(Path.of("/var/lib/azure-init-custom/"));
    // what kvprov cannot do as azure-init does: one warning each, at the key's line
    assertThat(config.warnings())
        .extracting(ConfigFinding::toString)
        .containsExactlyInAnyOrder(
            file
                + ":29: azure_proxy_agent.enable is ignored: kvprov does not talk to the Azure"
                + " Proxy Agent (azure-init does not either)",
            file
                + ":35: wireserver.health_endpoint's path /health is ignored: kvprov reports"
                + " health to /provisioning/health on its host",
            file
                + ":39: telemetry.kvp_filter is ignored: kvprov does not filter KVP records by"
                + " level; telemetry.record_budget bounds them, debug records dropped first",
            file
                + ":45: azure_init_log_path.path is ignored: kvprov writes no log file; its lines"
                + " go to stderr (the journal), and /etc/kvprov/logback.xml can add a file");
    // and every key of the example came from the file: none unknown, none dropped
    Set<String> fromFile =
        config.settings().stream()
            .filter(s -> s.origin().startsWith(file.toString()))
            .map(Setting::key)
            .collect(Collectors.toSet());
    assertThat(fromFile).hasSize(20).containsAll(keysIn(example()));
  }

  /** The dotted keys a TOML text sets, as {@code [section]} and {@code key = } lines say. */
  private static List<String> keysIn(String toml) {
    String[] section = {""};
    return toml.lines()
        .filter(l -> !l.isBlank() && !l.startsWith("#"))
        .map(
            l -> {
              if (l.startsWith("[")) {
                section[0] = l.substring(1, l.indexOf(']'));
                return null;
              }
              return section[0] + "." + l.substring(0, l.indexOf('=')).strip();
            })
        .filter(java.util.Objects::nonNull)
        .toList();
  }

  @Test
  void azureInitsDefaults_stated_changeNothing_andWarnOfNothing() throws Exception {
    write(
        "etc/azure-init/azure-init.toml",
        """
        [azure_proxy_agent]
        enable = true
        [azure_init_log_path]
        path = "/var/log/azure-init.log"
        [wireserver]
        health_endpoint = "http://168.63.129.16/provisioning/health"
        """);

    AgentConfig config = ConfigLoader.load(root, Optional.empty());

    assertThat(config.warnings()).isEmpty();
    assertThat(config.wireserver().endpoint()).isEqualTo(URI.create("http://168.63.129.16"));
  }

  @Test
  void kvprovsOwnFiles_present_azureInitsAreNotRead() throws Exception {
    Path own = write("etc/kvprov/kvprov.toml.d/50-x.toml", "[imds]\nretry_interval_secs = 1\n");
    write("etc/azure-init/azure-init.toml", "[imds]\nretry_interval_secs = 9\n");

    AgentConfig config = ConfigLoader.load(root, Optional.empty());

    assertThat(config.files()).containsExactly(own);
    assertThat(config.readAzureInitFiles()).isFalse();
    assertThat(config.imds().retryInterval()).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void theShippedKvprovToml_allCommentedOut_doesNotHideAzureInits() throws Exception {
    Path shipped = root.resolve("etc/kvprov/kvprov.toml");
    Files.createDirectories(shipped.getParent());
    Files.copy(Path.of("../debian/src/deb/etc/kvprov.toml"), shipped);
    Path azureInit =
        write(
            "etc/azure-init/azure-init.toml",
            "[ssh]\nconfigure_sshd_password_authentication = false\n");

    AgentConfig config = ConfigLoader.load(root, Optional.empty());

    assertThat(config.files()).containsExactly(azureInit, shipped);
    assertThat(config.readAzureInitFiles()).isTrue();
    assertThat(config.configureSshdPasswordAuthentication()).isFalse();
  }

  @Test
  void azureInitsFiles_documentedThenItsOwn_inOrder_laterWinning() throws Exception {
    Path documented = write("etc/azure-init/azure-init.toml", "[imds]\nretry_interval_secs = 1\n");
    Path documentedDropIn =
        write("etc/azure-init/azure-init.toml.d/10-a.toml", "[imds]\nretry_interval_secs = 2\n");
    Path code = write("etc/azure-init.toml", "[imds]\nretry_interval_secs = 3\n");
    Path codeDropIn = write("etc/azure-init.d/10-b.toml", "[imds]\nretry_interval_secs = 4\n");
    write("etc/azure-init.d/README", "not read");

    AgentConfig config = ConfigLoader.load(root, Optional.empty());

    assertThat(config.files()).containsExactly(documented, documentedDropIn, code, codeDropIn);
    assertThat(config.imds().retryInterval()).isEqualTo(Duration.ofSeconds(4));
  }

  @Test
  void bothWireserverAddresses_disagreeing_kvprovsWins_andAWarningSaysSo() throws Exception {
    Path file =
        write(
            "etc/azure-init/azure-init.toml",
            """
            [wireserver]
            endpoint = "http://10.0.0.1/"
            health_endpoint = "http://10.0.0.1/provisioning/health"
            """);
    assertThat(ConfigLoader.load(root, Optional.empty()).warnings()).as("the same host").isEmpty();

    Files.writeString(
        file,
        """
        [wireserver]
        endpoint = "http://10.0.0.1"
        health_endpoint = "http://10.0.0.2/provisioning/health"
        """);
    AgentConfig config = ConfigLoader.load(root, Optional.empty());

    assertThat(config.wireserver().endpoint()).isEqualTo(URI.create("http://10.0.0.1"));
    assertThat(config.warnings())
        .extracting(ConfigFinding::toString)
        .containsExactly(
            file
                + ":3: wireserver.health_endpoint's host is ignored: wireserver.endpoint names"
                + " another, and is used");
  }

  @Test
  void bothTimeoutNames_disagreeing_kvprovsWins_andAWarningSaysSo() throws Exception {
    Path file =
        write(
            "etc/azure-init/azure-init.toml",
            "[imds]\nread_timeout_secs = 10\nrequest_timeout_secs = 20\n");

    AgentConfig config = ConfigLoader.load(root, Optional.empty());

    assertThat(config.imds().readTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(config.warnings())
        .extracting(ConfigFinding::toString)
        .containsExactly(
            file
                + ":3: imds.request_timeout_secs is ignored: imds.read_timeout_secs is set too,"
                + " and is used");
  }

  @Test
  void anErrorInAzureInitsFile_isAnErrorNamingIt() throws Exception {
    Path file = write("etc/azure-init.toml", "[ssh]\nquery_sshd_config = \"not_a_boolean\"\n");

    assertThat(
            org.assertj.core.api.Assertions.catchThrowableOfType(
                () -> ConfigLoader.load(root, Optional.empty()), ConfigException.class))
        .extracting(ConfigException::findings)
        .asList()
        .extracting(Object::toString)
        .containsExactly(
            file + ":2:1: ssh.query_sshd_config = \"not_a_boolean\": expected true or false");
  }
}
