package dev.kvprov.inspect.bundle;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvprov.fixtures.Fixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BundleImageFilesTest {
  @TempDir Path dir;

  @Test
  void aPlainFile_isRead_butNotALink_aPipe_orOneLargerThanAsked() throws Exception {
    Path plain = Files.writeString(dir.resolve("kvprov.toml"), "a = 1\n");
    Path link = Files.createSymbolicLink(dir.resolve("link.toml"), plain);
    Path fifo = dir.resolve("fifo.toml");
    assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();

    assertThat(new String(BundleImageFiles.read(plain, 6), UTF_8)).isEqualTo("a = 1\n");
    assertThatThrownBy(() -> BundleImageFiles.read(link, 100))
        .hasMessageContaining("a link: not followed");
    assertThatThrownBy(() -> BundleImageFiles.read(fifo, 100))
        .hasMessageContaining("not a regular file");
    assertThatThrownBy(() -> BundleImageFiles.read(plain, 5))
        .hasMessageContaining("6 bytes: more than such a file holds");
  }

  @Test
  void aPoolOfTheImage_isNotLookedAtThroughALink_butOneGivenIs() throws Exception {
    Path pool = Files.write(dir.resolve("pool"), Fixtures.bytes(Fixtures.CLOUD_INIT_POOL));
    Path link = Files.createSymbolicLink(dir.resolve("link"), pool);

    assertThat(BundleImageFiles.kindInImage(pool).notAPool()).isNull();
    assertThat(BundleImageFiles.givenKind(link).notAPool()).isNull();
    assertThatThrownBy(() -> BundleImageFiles.kindInImage(link))
        .hasMessageContaining("a link: not followed");
  }

  @Test
  void aLinkOutOfTheRoot_barsWhatIsBelowIt_andIsSaidOnce() throws Exception {
    Path root = Files.createDirectories(dir.resolve("rescued"));
    Path elsewhere = Files.createDirectories(dir.resolve("rescue-machine"));
    Files.createSymbolicLink(root.resolve("etc"), elsewhere);
    Files.createDirectories(root.resolve("var/lib/kvprov"));
    BundleManifest manifest = new BundleManifest();

    boolean kvprov = BundleImageFiles.inside(root, "etc/kvprov", manifest);
    boolean passwd = BundleImageFiles.inside(root, "etc/passwd", manifest);
    boolean state = BundleImageFiles.inside(root, "var/lib/kvprov", manifest);

    assertThat(kvprov).isFalse();
    assertThat(passwd).isFalse();
    assertThat(state).isTrue();
    assertThat(manifest.lines())
        .singleElement()
        .asString()
        .startsWith("not read: " + root.resolve("etc"));
  }
}
