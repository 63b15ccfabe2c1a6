package dev.kvprov.inspect;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.inspect.cli.KvpCommand;
import dev.kvprov.kvp.KvpLimits;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.RecordCodec;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kvp bundle} over more than it may hold in memory: pools and archives are streamed into the
 * {@code .tar.gz}, only the newest archives are taken unless asked, and a root with nothing to
 * bundle is refused.
 */
class BundleStreamingTest {
  private static final long MIB = 1 << 20;

  @TempDir Path dir;

  /** A pool of {@code mib} MiB: plain records, cheap to write, read and list. */
  private static void bulkPool(Path file, int mib, String tag) throws Exception {
    ByteArrayOutputStream block = new ByteArrayOutputStream();
    for (int i = 0; block.size() < MIB; i++) {
      block.writeBytes(
          RecordCodec.encode(new KvpRecord(tag + "-" + i, "x".repeat(1500)), KvpLimits.WIRE));
    }
    byte[] bytes = block.toByteArray();
    Files.createDirectories(file.getParent());
    try (OutputStream out = Files.newOutputStream(file)) {
      for (int i = 0; i < mib; i++) {
        out.write(bytes);
      }
    }
  }

  /** A rescued root: pool 1 and {@code archives} archived boots of pool 1, each {@code mib} MiB. */
  private Path root(int archives, int mib) throws Exception {
    Path root = dir.resolve("rescued");
    bulkPool(root.resolve("var/lib/hyperv/.kvp_pool_1"), mib, "live");
    for (int i = 1; i <= archives; i++) {
      bulkPool(
          root.resolve("var/lib/kvprov/kvp-archive/pool1-" + (1795322000L + i) + ".kvp"),
          mib,
          "boot" + i);
    }
    return root;
  }

  /** Each file of the bundle and its size, read without holding any of it. */
  private static Map<String, Long> sizes(Path bundle) throws Exception {
    Map<String, Long> files = new LinkedHashMap<>();
    try (InputStream in = Files.newInputStream(bundle);
        TarArchiveInputStream tar = new TarArchiveInputStream(new GzipCompressorInputStream(in))) {
      TarArchiveEntry entry;
      while ((entry = tar.getNextEntry()) != null) {
        files.put(entry.getName(), tar.transferTo(OutputStream.nullOutputStream()));
      }
    }
    return files;
  }

  private static String text(Path bundle, String name) throws Exception {
    try (InputStream in = Files.newInputStream(bundle);
        TarArchiveInputStream tar = new TarArchiveInputStream(new GzipCompressorInputStream(in))) {
      TarArchiveEntry entry;
      while ((entry = tar.getNextEntry()) != null) {
        if (entry.getName().equals(name)) {
          return new String(tar.readAllBytes(), UTF_8);
        }
      }
    }
    throw new AssertionError(name + " is not in " + bundle);
  }

  /**
   * {@code kvp bundle ARGS} in a JVM of its own with a heap of 128 MiB, half the bundle's whole
   * memory budget: what it said, and exit 0.
   */
  private String bundleIn128MiB(String... args) throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m",
                "-cp",
                System.getProperty("java.class.path"),
                KvpCommand.class.getName(),
                "bundle"));
    command.addAll(List.of(args));
    Path out = Files.createTempFile(dir, "said", ".txt");
    Process p =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    p.getOutputStream().close();
    int exit = p.waitFor();
    String said = Files.readString(out);
    assertThat(exit).as(said).isZero();
    return said;
  }

  @Test
  void moreThanTheHeapHolds_isBundledInA128MiBJvm() throws Exception {
    // 7 x 48 MiB: the pool and the five newest archives alone are more than the whole heap
    Path root = root(6, 48);
    long size = Files.size(root.resolve("var/lib/hyperv/.kvp_pool_1"));
    assertThat(size).isGreaterThanOrEqualTo(48 * MIB);
    Path bundle = dir.resolve("big.tar.gz");

    String said = bundleIn128MiB("--root", root.toString(), "-o", bundle.toString());

    Map<String, Long> files = sizes(bundle);
    assertThat(files.get("kvp-bundle/pools/.kvp_pool_1")).isEqualTo(size);
    for (int i = 2; i <= 6; i++) {
      assertThat(files.get("kvp-bundle/pools/archive/pool1-" + (1795322000L + i) + ".kvp"))
          .as("archive %d", i)
          .isEqualTo(size);
    }
    assertThat(files).doesNotContainKey("kvp-bundle/pools/archive/pool1-1795322001.kvp");
    assertThat(said).contains("left out: 1 older archive of pool 1");
    // kvp's own commands, which hold what they read, get no more than 64 MiB of it
    assertThat(text(bundle, "kvp-bundle/MANIFEST.txt"))
        .contains(
            "kvp/ reads at most 64 MiB of pool 1: 5 more archives are in pools/archive/ only");

    Path all = dir.resolve("all.tar.gz");
    String allSaid =
        bundleIn128MiB("--root", root.toString(), "-o", all.toString(), "--all-archives");

    assertThat(sizes(all).get("kvp-bundle/pools/archive/pool1-1795322001.kvp")).isEqualTo(size);
    assertThat(allSaid)
        .contains(
            "kvp/ reads pool 1 and its newest 5 archives: the older one is in pools/archive/ only");
  }

  @Test
  void theNewestFiveArchives_areTakenByDefault_andAllWithAllArchives() throws Exception {
    Path root = root(8, 1);
    Path bundle = dir.resolve("five.tar.gz");

    CliRun run = CliRun.of("bundle", "--root", root.toString(), "-o", bundle.toString());

    assertThat(run.exit()).as(run.err()).isZero();
    Map<String, Long> files = sizes(bundle);
    assertThat(files.keySet().stream().filter(n -> n.startsWith("kvp-bundle/pools/archive/")))
        .containsExactly(
            "kvp-bundle/pools/archive/pool1-1795322004.kvp",
            "kvp-bundle/pools/archive/pool1-1795322005.kvp",
            "kvp-bundle/pools/archive/pool1-1795322006.kvp",
            "kvp-bundle/pools/archive/pool1-1795322007.kvp",
            "kvp-bundle/pools/archive/pool1-1795322008.kvp");
    assertThat(run.out())
        .contains(
            "left out: 3 older archives of pool 1 (pool1-1795322001.kvp to pool1-1795322003.kvp);"
                + " --all-archives takes them");
    assertThat(text(bundle, "kvp-bundle/MANIFEST.txt")).contains("left out: 3 older archives");
    // what kvp says of the pools is said of what the bundle holds, under the rescued disk's paths
    String list = text(bundle, "kvp-bundle/kvp/list-wide.txt");
    assertThat(list)
        .contains(
            "== " + root.resolve("var/lib/kvprov/kvp-archive/pool1-1795322004.kvp"), "boot4-0")
        .doesNotContain("pool1-1795322003.kvp", "boot3-0", "kvp-bundle-view");

    Path all = dir.resolve("all.tar.gz");
    CliRun everything =
        CliRun.of("bundle", "--root", root.toString(), "-o", all.toString(), "--all-archives");

    assertThat(everything.exit()).as(everything.err()).isZero();
    assertThat(sizes(all).keySet().stream().filter(n -> n.startsWith("kvp-bundle/pools/archive/")))
        .hasSize(8);
    assertThat(everything.out()).doesNotContain("left out");
  }

  @Test
  void aRootWithNoPoolAndNoArchive_isRefused_namingWhereItLooked() throws Exception {
    Path typo = Files.createDirectories(dir.resolve("mnt/typo"));
    Path bundle = dir.resolve("empty.tar.gz");

    CliRun run = CliRun.of("bundle", "--root", typo.toString(), "-o", bundle.toString());

    assertThat(run.exit()).isEqualTo(3);
    assertThat(run.err().lines().toList())
        .singleElement()
        .asString()
        .startsWith("kvp bundle: ")
        .contains(
            typo.resolve("var/lib/hyperv").toString(),
            typo.resolve("var/lib/kvprov/kvp-archive").toString());
    assertThat(bundle).doesNotExist();
  }
}
