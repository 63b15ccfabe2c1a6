package dev.kvprov.agent.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code /etc/kvprov/kvprov.toml} the Debian package installs lists every key with its default:
 * as shipped it changes nothing, and uncommented it still changes nothing.
 */
class ShippedConfigTest {
  static final Path SHIPPED = Path.of("../debian/src/deb/etc/kvprov.toml");

  @TempDir Path root;

  private AgentConfig load(String text) throws Exception {
    Path etc = Files.createDirectories(root.resolve("etc/kvprov"));
    Files.writeString(etc.resolve("kvprov.toml"), text);
    return ConfigLoader.load(root, Optional.empty());
  }

  @Test
  void asShipped_everyValueIsTheDefault() throws Exception {
    AgentConfig config = load(Files.readString(SHIPPED));

    assertThat(config.warnings()).isEmpty();
    assertThat(config.settings()).allSatisfy(s -> assertThat(s.origin()).isEqualTo("default"));
  }

  @Test
  void uncommented_everyKeyIsThere_onceEach_withItsDefault() throws Exception {
    String uncommented =
        Files.readString(SHIPPED)
            .lines()
            .map(l -> l.matches("# [a-z_]+ = .*") ? l.substring(2) : l)
            .collect(Collectors.joining("\n"));

    AgentConfig config = load(uncommented);

    assertThat(config.warnings()).isEmpty();
    assertThat(config.settings())
        .allSatisfy(
            s -> {
              assertThat(s.origin()).as(s.key()).contains("kvprov.toml");
              assertThat(s.value())
                  .as(s.key())
                  .isEqualTo(ConfigLoader.defaults().get(ConfigKey.byKey(s.key())).value());
            });
    assertThat(config.settings()).hasSize(ConfigKey.values().length);
  }

  @Test
  void theConfigurationGuide_namesEveryKey() throws Exception {
    String guide = Files.readString(Path.of("../docs/configuration.md"));

    assertThat(Arrays.stream(ConfigKey.values()).map(k -> "`" + k.key + "`"))
        .allSatisfy(key -> assertThat(guide).contains(key));
  }
}
