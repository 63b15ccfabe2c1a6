package dev.kvprov.kvp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Links under a root: the first that leads out is found, whatever form it takes. */
class WayOutTest {
  @TempDir Path dir;

  private Path root;
  private Path outside;

  @BeforeEach
  void aRootAndSomethingBesideIt() throws Exception {
    root = dir.resolve("root");
    Files.createDirectories(root.resolve("var/lib"));
    outside = Files.createDirectories(dir.resolve("outside"));
  }

  @Test
  void anAbsoluteLinkOut_isFound_withWhereItLeads() throws Exception {
    Files.createSymbolicLink(root.resolve("var/lib/hyperv"), outside);

    assertThat(WayOut.find(root, "/var/lib/hyperv/.kvp_pool_1"))
        .contains(new WayOut(root.resolve("var/lib/hyperv"), outside.toRealPath()));
  }

  @Test
  void aRelativeLinkClimbingOut_isFound() throws Exception {
    Files.createSymbolicLink(root.resolve("var/lib/hyperv"), Path.of("../../../outside"));

    assertThat(WayOut.find(root, "var/lib/hyperv/.kvp_pool_1")).isPresent();
  }

  @Test
  void aDanglingLinkOut_isFound_whereAWriteWouldLand() throws Exception {
    Files.createSymbolicLink(root.resolve("var/lib/hyperv"), outside.resolve("not-yet"));

    assertThat(WayOut.find(root, "var/lib/hyperv/.kvp_pool_1"))
        .contains(new WayOut(root.resolve("var/lib/hyperv"), outside.resolve("not-yet")));
  }

  @Test
  void aLinkThatStaysInside_orAPathNotMadeYet_isNoWayOut() throws Exception {
    Files.createDirectories(root.resolve("srv/hyperv"));
    Files.createSymbolicLink(root.resolve("var/lib/hyperv"), Path.of("../../srv/hyperv"));

    assertThat(WayOut.find(root, "var/lib/hyperv/.kvp_pool_1")).isEmpty();
    assertThat(WayOut.find(root, "var/lib/kvprov/kvp-archive")).isEmpty();
    assertThat(WayOut.find(dir.resolve("no-such-root"), "var/lib/hyperv")).isEmpty();
  }

  @Test
  void aRootThatIsItselfALink_isJudgedByWhereItLeads() throws Exception {
    Path mount = Files.createSymbolicLink(dir.resolve("mnt"), root);

    assertThat(WayOut.find(mount, "var/lib")).isEmpty();
  }
}
