package dev.kvprov.kvp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NativeFallbackTest {
  @TempDir Path dir;

  @Test
  void withoutNativeCode_writesUnderTheFcntlLockOnly_andSaysSoOnce() throws Exception {
    Path file = dir.resolve(".kvp_pool_1");
    List<String> noNative =
        List.of("-Djna.nosys=true", "-Djna.noclasspath=true", "-Djna.boot.library.path=" + dir);
    String stdout;
    String stderr;
    try (Peers.Peer writer =
        Peers.jvm(PoolWriterMain.class, noNative, file.toString(), "fallback", "5", "1")) {
      writer.expectLine("ready");
      writer.send("go");
      StringBuilder out = new StringBuilder();
      for (String line; (line = writer.readLine()) != null; ) {
        out.append(line).append('\n');
      }
      writer.awaitSuccess(60);
      stdout = out.toString();
      stderr = writer.stderr();
    }

    assertThat(stdout).contains("done flock=false");
    assertThat(stderr.split("native flock unavailable", -1)).hasSize(2);
    assertThat(stderr).contains("taking only the fcntl lock");
    PoolSnapshot snapshot = PoolFile.builder().file(file).build().read();
    PoolVerifier.assertComplete(
        PoolVerifier.positions(snapshot, List.of("fallback")), "fallback", 5);
    assertThat(PoolFile.flockAvailable()).as("this JVM has native code").isTrue();
  }
}
