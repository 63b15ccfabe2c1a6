package dev.kvprov.kvp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a pool lock's first use costs a fresh JVM: the native flock, and no process started for it
 * (JNA, left to itself, runs {@code /sbin/ldconfig -p} as it loads), nor JNA's structure-based type
 * descriptions (its {@code Native.register} describes every argument to libffi through them, built
 * by reflection and annotation proxies).
 */
class LockStartTest {
  @TempDir Path dir;

  @Test
  void firstLockedAppend_takesFlock_withoutStartingAProcess() throws Exception {
    Path file = dir.resolve(".kvp_pool_1");
    List<String> stdout = new ArrayList<>();
    try (Peers.Peer child =
        Peers.jvm(AppendOnce.class, List.of("-Xlog:class+load=info:stdout"), file.toString())) {
      for (String line; (line = child.readLine()) != null; ) {
        stdout.add(line);
      }
      child.awaitSuccess(60);
    }

    assertThat(stdout).contains("done flock=true");
    assertThat(stdout).noneMatch(line -> line.contains(" java.lang.ProcessBuilder "));
    assertThat(stdout)
        .noneMatch(line -> line.contains(" com.sun.jna.Structure$FFIType "))
        .noneMatch(line -> line.contains(" jdk.proxy"));
    assertThat(PoolFile.builder().file(file).build().read().records())
        .containsExactly(new KvpRecord("k", "v"));
  }

  /** Appends one record to the pool named by its argument, then says whether flock was taken. */
  public static final class AppendOnce {
    public static void main(String[] args) throws Exception {
      PoolFile.builder().file(Path.of(args[0])).build().append(List.of(new KvpRecord("k", "v")));
      System.out.println("done flock=" + PoolFile.flockAvailable());
    }
  }
}
