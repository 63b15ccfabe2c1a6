package dev.kvprov.inspect.bundle;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BundleManifestTest {
  @Test
  void linesStayInTheOrderTried_andALineSaidOnceIsNotRepeated() {
    BundleManifest manifest = new BundleManifest();

    manifest.addOnce("not read: /r/etc is a link out of /r: not read");
    manifest.added("pools/.kvp_pool_1", 2560, "/r/var/lib/hyperv/.kvp_pool_1");
    manifest.addOnce("not read: /r/etc is a link out of /r: not read");
    manifest.add("left out: 1 older archive");
    manifest.add("left out: 1 older archive");

    assertThat(manifest.lines())
        .containsExactly(
            "not read: /r/etc is a link out of /r: not read",
            "added pools/.kvp_pool_1 (2560 bytes, from /r/var/lib/hyperv/.kvp_pool_1)",
            "left out: 1 older archive",
            "left out: 1 older archive");
    assertThat(new String(manifest.text(), UTF_8))
        .isEqualTo(String.join("\n", manifest.lines()) + "\n");
  }
}
