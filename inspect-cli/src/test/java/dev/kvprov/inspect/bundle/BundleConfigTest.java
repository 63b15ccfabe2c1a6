package dev.kvprov.inspect.bundle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.fixtures.Fixtures;
import dev.kvprov.inspect.TestBundle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BundleConfigTest {
  @TempDir Path dir;

  private Map<String, String> bundled(Path root) throws Exception {
    try (TestBundle bundle = new TestBundle(dir)) {
      BundleConfig.add(root, BundleUsers.kept(), bundle.files);
      return bundle.finish();
    }
  }

  @Test
  void kvprovsAndAzureInitsTomlFiles_goIn_masked_andNothingElseThere() throws Exception {
    Path root = dir.resolve("rescued");
    Path kvprov = Files.createDirectories(root.resolve("etc/kvprov/kvprov.toml.d"));
    Files.writeString(
        root.resolve("etc/kvprov/kvprov.toml"), "token = \"" + Fixtures.CANARY + "\"\n");
    Files.writeString(kvprov.resolve("10-more.toml"), "retries = 3\n");
    Files.writeString(kvprov.resolve("notes.txt"), "not configuration\n");
    Path azureInit = Files.createDirectories(root.resolve("etc/azure-init"));
    Files.writeString(azureInit.resolve("azure-init.toml"), "[ssh]\n");

    Map<String, String> files = bundled(root);

    assertThat(files)
        .containsOnlyKeys(
            "config/etc/kvprov/kvprov.toml",
            "config/etc/kvprov/kvprov.toml.d/10-more.toml",
            "config/etc/azure-init/azure-init.toml",
            "MANIFEST.txt");
    assertThat(files.get("config/etc/kvprov/kvprov.toml")).isEqualTo("token = \"[redacted]\"\n");
  }

  @Test
  void noConfiguration_isSaid_asDefaultsApplying() throws Exception {
    Path root = Files.createDirectories(dir.resolve("rescued"));

    assertThat(bundled(root).get("MANIFEST.txt"))
        .isEqualTo(
            "no configuration files in " + root.resolve("etc/kvprov") + " (defaults apply)\n");
  }
}
