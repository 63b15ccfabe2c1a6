package dev.kvprov.inspect.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kvprov.inspect.LoadedClasses;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The locks' native binding made ahead on a second core ({@link LockBinding}): when the command
 * line says a live pool will be locked, and then only; the output and its failures as without it.
 */
class LockBindingTest {
  /** What a JVM shows when the binding thread was made: the lambda it runs. */
  private static final String BINDING_STARTED = "dev.kvprov.inspect.cli.LockBinding$$Lambda";

  /** JNA's first class: loaded by a run that binds the lock calls, on any thread. */
  private static final String JNA = "com.sun.jna.Native";

  /** A JNA that cannot find its native library: the lock falls back to fcntl and says so. */
  private static final List<String> NO_NATIVE =
      List.of("-Djna.boot.library.path=/nonexistent", "-Djna.nounpack=true");

  private static final List<String> ONE_CORE = List.of("-XX:ActiveProcessorCount=1");

  @TempDir Path dir;

  private Path live;
  private Path copy;

  @BeforeEach
  void pools() throws Exception {
    live = dir.resolve(".kvp_pool_1");
    PoolFile.builder().file(live).build().append(List.of(new KvpRecord("Ticket", "1")));
    copy = Files.copy(live, dir.resolve("pool1-copy.kvp"));
  }

  @Test
  void wanted_forALivePoolThatWillBeLocked() {
    String d = dir.toString();
    assertThat(LockBinding.wanted(new String[] {"list", "--dir", d}, 2)).isTrue();
    assertThat(LockBinding.wanted(new String[] {"tree", "--dir=" + d, "--pool", "1"}, 2)).isTrue();
    assertThat(LockBinding.wanted(new String[] {"dump", "--file", live.toString()}, 2)).isTrue();
    assertThat(LockBinding.wanted(new String[] {"get", "--file=" + live, "Ticket"}, 4)).isTrue();
    // a write locks the pool it makes
    assertThat(LockBinding.wanted(new String[] {"set", "--dir", d, "--pool", "2", "k", "v"}, 2))
        .isTrue();
  }

  @Test
  void wanted_underARoot_namesItsPool() throws Exception {
    Path pools = Files.createDirectories(dir.resolve("disk/var/lib/hyperv"));
    Files.copy(live, pools.resolve(".kvp_pool_1"));
    String root = dir.resolve("disk").toString();

    assertThat(LockBinding.wanted(new String[] {"report", "--root", root}, 2)).isTrue();
    assertThat(LockBinding.wanted(new String[] {"report", "--root", root, "--pool=0"}, 2))
        .isFalse();
  }

  @Test
  void notWanted_whenNoLiveNameIsLocked() {
    String d = dir.toString();
    List<String[]> runs =
        List.of(
            new String[] {"list", "--file", copy.toString()},
            new String[] {"list", "--file", "-"},
            new String[] {"list", "--host-xml", live.toString()},
            new String[] {"list", "--dir", d, "--pool", "3"}, // a read of a pool not there
            new String[] {"list", "--dir", d, "--help"},
            new String[] {"list", "--dir", d, "-V"},
            new String[] {"--version"},
            new String[] {"diff", live.toString(), live.toString()},
            new String[] {"list", "--dir"},
            new String[] {"list", "--file", "a\0b/.kvp_pool_1"},
            new String[] {});
    for (String[] run : runs) {
      assertThat(LockBinding.wanted(run, 2)).as(String.join(" ", run)).isFalse();
    }
  }

  @Test
  void notWanted_withOneCore() {
    assertThat(LockBinding.wanted(new String[] {"list", "--dir", dir.toString()}, 1)).isFalse();
  }

  @Test
  void aLivePool_isBoundAhead_unlessThereIsOneCore() throws Exception {
    assumeTrue(Runtime.getRuntime().availableProcessors() > 1, "a second core");

    LoadedClasses twoCores = LoadedClasses.ofKvp(dir, "list", "--dir", dir.toString());
    LoadedClasses oneCore = LoadedClasses.ofKvp(dir, ONE_CORE, "list", "--dir", dir.toString());

    assertThat(twoCores.classes()).anyMatch(c -> c.startsWith(BINDING_STARTED));
    assertThat(oneCore.classes()).noneMatch(c -> c.startsWith(BINDING_STARTED));
    assertThat(oneCore.output()).isEqualTo(twoCores.output()).contains("Ticket");
  }

  @Test
  void help_version_andACopy_loadNoNativeCode() throws Exception {
    String d = dir.toString();
    for (String[] run :
        List.of(
            new String[] {"list", "--dir", d, "--help"},
            new String[] {"--version"},
            new String[] {"list", "--file", copy.toString()})) {
      assertThat(LoadedClasses.ofKvp(dir, run).classes())
          .as(String.join(" ", run))
          .doesNotContain(JNA)
          .noneMatch(c -> c.startsWith(BINDING_STARTED));
    }
  }

  @Test
  void aNativeLibraryThatDoesNotLoad_isSaidAtTheLock_asWithoutTheThread() throws Exception {
    assumeTrue(Runtime.getRuntime().availableProcessors() > 1, "a second core");
    List<String> oneCore = new java.util.ArrayList<>(NO_NATIVE);
    oneCore.addAll(ONE_CORE);

    LoadedClasses ahead = LoadedClasses.ofKvp(dir, NO_NATIVE, "list", "--dir", dir.toString());
    LoadedClasses atTheLock = LoadedClasses.ofKvp(dir, oneCore, "list", "--dir", dir.toString());

    assertThat(ahead.classes()).anyMatch(c -> c.startsWith(BINDING_STARTED));
    assertThat(withoutLogTime(ahead.output()))
        .isEqualTo(withoutLogTime(atTheLock.output()))
        .contains("native flock unavailable")
        .contains("Ticket");
  }

  /** java.util.logging's line before each record: when and where, which differ from run to run. */
  private static String withoutLogTime(String output) {
    return output.replaceAll("(?m)^\\w{3} \\d{1,2}, \\d{4} .*(AM|PM) .*\\R", "");
  }
}
