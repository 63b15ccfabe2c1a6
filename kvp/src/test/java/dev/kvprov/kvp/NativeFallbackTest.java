package dev.kvprov.kvp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A JVM whose JNA cannot load its native part: the store degrades to the fcntl lock, safely. */
class NativeFallbackTest {
  private static final List<String> NO_NATIVE =
      List.of("-Djna.nosys=true", "-Djna.noclasspath=true", "-Djna.boot.library.path=/nonexistent");

  @TempDir Path dir;

  @Test
  void withoutNativeCode_appendsUnderTheFcntlLockOnly_andSaysSoOnce() throws Exception {
    Path file = dir.resolve(".kvp_pool_1");
    List<String> stdout = new ArrayList<>();
    String stderr;
    try (Peers.Peer writer =
        Peers.jvm(PoolWriterMain.class, NO_NATIVE, file.toString(), "fallback", "5", "1")) {
      writer.expectLine("ready");
      writer.send("go");
      for (String line; (line = writer.readLine()) != null; ) {
        stdout.add(line);
      }
      writer.awaitSuccess(60);
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

  @Test
  void withoutNativeCode_refusesToRewriteThePool_leavingItIntact() throws Exception {
    Path file = dir.resolve(".kvp_pool_1");
    PoolFile pool = PoolFile.builder().file(file).build();
    pool.append(List.of(new KvpRecord("REPORT", "first"), new KvpRecord("other", "x")));

    List<String> stdout = new ArrayList<>();
    try (Peers.Peer probe = Peers.jvm(RewriteProbe.class, NO_NATIVE, file.toString())) {
      for (String line; (line = probe.readLine()) != null; ) {
        stdout.add(line);
      }
      probe.awaitSuccess(60);
    }

    assertThat(stdout)
        .containsExactly(
            "upsert refused: cannot upsert on " + file + ": native flock is unavailable",
            "delete refused: cannot delete on " + file + ": native flock is unavailable",
            "clearIfStale refused: cannot clear a stale pool on "
                + file
                + ": native flock is unavailable");
    assertThat(pool.read().records())
        .containsExactly(new KvpRecord("REPORT", "first"), new KvpRecord("other", "x"));
  }

  /** Tries each rewriting operation and prints how it was refused. */
  public static final class RewriteProbe {
    public static void main(String[] args) {
      PoolFile pool = PoolFile.builder().file(Path.of(args[0])).build();
      attempt("upsert", () -> pool.upsert(new KvpRecord("REPORT", "second")));
      attempt("delete", () -> pool.delete("other"));
      attempt("clearIfStale", () -> pool.clearIfStale(Instant.now().plusSeconds(60)));
    }

    private interface Operation {
      void run() throws IOException;
    }

    private static void attempt(String name, Operation operation) {
      try {
        operation.run();
        System.out.println(name + " went ahead");
      } catch (IOException e) {
        String message = e.getMessage();
        System.out.println(name + " refused: " + message.substring(0, message.indexOf(" (")));
      }
    }
  }
}
