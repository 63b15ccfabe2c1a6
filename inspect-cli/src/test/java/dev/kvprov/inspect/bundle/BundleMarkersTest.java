package dev.kvprov.inspect.bundle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.fixtures.Fixtures;
import dev.kvprov.inspect.TestBundle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BundleMarkersTest {
  @TempDir Path dir;

  private Map<String, String> bundled(Path root) throws Exception {
    try (TestBundle bundle = new TestBundle(dir)) {
      BundleMarkers.add(root, BundleUsers.kept(), bundle.files);
      return bundle.finish();
    }
  }

  @Test
  void theStateDirectory_isListed_markersWithTheirTimes_andNoFilesContents() throws Exception {
    Path root = dir.resolve("rescued");
    Path state = Files.createDirectories(root.resolve("var/lib/kvprov/kvp-archive"));
    Path marker = Files.writeString(state.resolveSibling("vm-1.provisioned"), "contents\n");
    Files.setLastModifiedTime(marker, FileTime.from(Instant.parse("2026-11-22T04:47:49Z")));
    Files.writeString(
        state.resolveSibling("ovf-env.xml"), "<Password>" + Fixtures.CANARY + "</Password>");

    Map<String, String> files = bundled(root);

    assertThat(files.get("state/markers.txt"))
        .isEqualTo("kvp-archive/\novf-env.xml\nvm-1.provisioned  written 2026-11-22T04:47:49Z\n");
  }

  @Test
  void noStateDirectory_isSaid() throws Exception {
    Path root = Files.createDirectories(dir.resolve("rescued"));

    assertThat(bundled(root).get("MANIFEST.txt"))
        .isEqualTo("no kvprov state directory at " + root.resolve("var/lib/kvprov") + "\n");
  }
}
