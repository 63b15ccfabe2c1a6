package dev.kvprov.inspect.bundle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.inspect.RawPool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BundleUsersTest {
  @TempDir Path dir;

  @Test
  void namesAreLearned_fromTheImagesAccounts_andFromEveryPoolsItems() throws Exception {
    Path root = dir.resolve("rescued");
    Files.writeString(
        Files.createDirectories(root.resolve("etc")).resolve("passwd"),
        "root:x:0:0::/root:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/sh\n");
    Path pool =
        Files.write(
            dir.resolve(".kvp_pool_1"),
            new RawPool().add("imds", "{\"adminUsername\": \"bob\"}").bytes());
    BundleManifest manifest = new BundleManifest();

    BundleUsers users =
        BundleUsers.learned(
            new BundleInput(BundleInput.Kind.ROOT, root, root, "", 1),
            List.of(new BundlePool(pool, "pools/.kvp_pool_1", 1)),
            manifest);

    assertThat(users.redacting()).isTrue();
    assertThat(users.redact("alice and bob, as root"))
        .isEqualTo(
            "user-" + UserNames.hash("alice") + " and user-" + UserNames.hash("bob") + ", as root");
    assertThat(manifest.lines()).containsExactly("user names replaced by hashes: 2");
  }

  @Test
  void aFileGiven_hasNoAccounts_andAnUnreadablePasswd_isSaid() throws Exception {
    Path root = dir.resolve("rescued");
    // a directory where passwd should be: it cannot be read as a file
    Files.createDirectories(root.resolve("etc/passwd"));
    BundleManifest fromRoot = new BundleManifest();
    BundleManifest fromFile = new BundleManifest();

    BundleUsers.learned(
        new BundleInput(BundleInput.Kind.ROOT, root, root, "", 1), List.of(), fromRoot);
    BundleUsers.learned(
        new BundleInput(BundleInput.Kind.FILE, root, root, "x", 1), List.of(), fromFile);

    assertThat(fromRoot.lines().get(0))
        .startsWith("not read: " + root.resolve("etc/passwd"))
        .endsWith("(names taken from the pools only)");
    assertThat(fromFile.lines()).containsExactly("user names replaced by hashes: 0");
  }

  @Test
  void namesKept_leaveTextAsItIs() {
    assertThat(BundleUsers.kept().redact("/home/alice")).isEqualTo("/home/alice");
    assertThat(BundleUsers.kept().redacting()).isFalse();
  }
}
