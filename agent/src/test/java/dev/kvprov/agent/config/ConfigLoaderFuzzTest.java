package dev.kvprov.agent.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A configuration file of any bytes, by a coverage-guided fuzzer: a configuration or a {@link
 * ConfigException} with at least one finding, nothing else. {@code ./mvnw verify} replays the
 * committed seeds ({@code ConfigLoaderFuzzTestInputs}); {@code .ci/run} fuzzes for a bounded time.
 */
class ConfigLoaderFuzzTest {
  /** One empty system root and one file for every input: a real file, read as the agent does. */
  private static final Path ROOT = directory();

  @FuzzTest(maxDuration = "60s")
  void load_ofAnyFile_givesAConfigurationOrItsFindings(byte[] toml) throws IOException {
    Path file = ROOT.resolve("fuzzed.toml");
    Files.write(file, toml);
    try {
      ConfigLoader.load(ROOT, Optional.of(file));
    } catch (ConfigException e) {
      assertThat(e.findings()).anyMatch(ConfigFinding::isError);
    }
  }

  private static Path directory() {
    try {
      Path root = Files.createTempDirectory("kvprov-config-fuzz");
      root.toFile().deleteOnExit();
      return root;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
