package dev.kvprov.inspect.bundle;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.inspect.TestBundle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BundleFilesTest {
  @TempDir Path dir;

  private long entries() throws Exception {
    try (Stream<Path> all = Files.list(dir)) {
      return all.count();
    }
  }

  @Test
  void aFinishedBundle_holdsEachPartThenItsManifest_ownerOnly_andNoWorkFilesAreLeft()
      throws Exception {
    Path target = dir.resolve("t.tar.gz");
    BundleManifest manifest = new BundleManifest();
    int files;
    try (BundleFiles bundle = BundleFiles.to(target, manifest)) {
      bundle.add("state/markers.txt", "vm-1.ready\n".getBytes(UTF_8), "/var/lib/kvprov");
      Path made = Files.writeString(bundle.work("part"), "made on disk\n");
      bundle.add("kvp/tree.txt", made, "kvp tree");
      assertThat(made).doesNotExist();
      bundle.finish();
      files = bundle.files();
    }

    assertThat(files).isEqualTo(3);
    assertThat(TestBundle.unpack(target))
        .containsExactly(
            java.util.Map.entry("state/markers.txt", "vm-1.ready\n"),
            java.util.Map.entry("kvp/tree.txt", "made on disk\n"),
            java.util.Map.entry(
                "MANIFEST.txt",
                "added state/markers.txt (11 bytes, from /var/lib/kvprov)\n"
                    + "added kvp/tree.txt (13 bytes, from kvp tree)\n"));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(target)))
        .isEqualTo("rw-------");
    assertThat(entries()).as("the work directory is gone").isEqualTo(1);
  }

  @Test
  void aBundleNotFinished_leavesNothingBehind() throws Exception {
    Path target = dir.resolve("t.tar.gz");
    try (BundleFiles bundle = BundleFiles.to(target, new BundleManifest())) {
      bundle.add("a.txt", new byte[] {'a'}, "a test");
      Files.writeString(bundle.work("part"), "half made");
    }

    assertThat(target).doesNotExist();
    assertThat(entries()).isZero();
  }
}
