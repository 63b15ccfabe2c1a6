package dev.kvprov.inspect.bundle;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.inspect.RawPool;
import dev.kvprov.inspect.TestBundle;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.RecordCodec;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BundlePoolCopyTest {
  @TempDir Path dir;

  /** A root whose only account is {@code alice}, and the names learned from it. */
  private BundleUsers alice() throws Exception {
    Path root = dir.resolve("rescued");
    Files.writeString(
        Files.createDirectories(root.resolve("etc")).resolve("passwd"),
        "alice:x:1000:1000::/home/alice:/bin/sh\n");
    return BundleUsers.learned(
        new BundleInput(BundleInput.Kind.ROOT, root, root, "", 1), List.of(), new BundleManifest());
  }

  private static BundleInput given(BundleInput.Kind kind, Path file) {
    return new BundleInput(kind, Path.of("/"), Path.of("/var/lib/hyperv"), file.toString(), 1);
  }

  private Map<String, String> copied(BundlePool pool, BundleInput input, BundleUsers users)
      throws Exception {
    try (TestBundle bundle = new TestBundle(dir)) {
      BundlePoolCopy.copy(pool, input, users, bundle.files);
      return bundle.finish();
    }
  }

  @Test
  void aPool_isCopiedByteForByte_orRecordByRecordWithItsNamesReplaced() throws Exception {
    byte[] raw = new RawPool().add("provision.user", "made /home/alice").bytes();
    Path file = Files.write(dir.resolve(".kvp_pool_1"), raw);
    BundlePool pool = new BundlePool(file, "pools/.kvp_pool_1", 1);
    BundleInput input = given(BundleInput.Kind.FILE, file);

    Map<String, String> plain = copied(pool, input, BundleUsers.kept());
    Map<String, String> redacted = copied(pool, input, alice());

    assertThat(plain.get("pools/.kvp_pool_1").getBytes(ISO_8859_1)).isEqualTo(raw);
    List<KvpRecord> records =
        RecordCodec.decode(redacted.get("pools/.kvp_pool_1").getBytes(ISO_8859_1)).records();
    assertThat(records)
        .containsExactly(
            new KvpRecord("provision.user", "made /home/user-" + UserNames.hash("alice")));
  }

  @Test
  void aHostExport_hasItsNamesReplacedLineByLine() throws Exception {
    Path file =
        Files.writeString(dir.resolve("export.xml"), "<UserName>alice</UserName>\n<x>1</x>\n");

    Map<String, String> files =
        copied(
            new BundlePool(file, "pools/export.xml", -1),
            given(BundleInput.Kind.HOST_EXPORT, file),
            alice());

    assertThat(files.get("pools/export.xml"))
        .isEqualTo("<UserName>user-" + UserNames.hash("alice") + "</UserName>\n<x>1</x>\n");
  }

  @Test
  void aFileLargerThanAPoolHolds_isNotTaken_evenWhenItGrewAfterItWasLookedAt() throws Exception {
    Path file = dir.resolve("grown.kvp");
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.setLength(BundleImageFiles.MAX_FILE_BYTES + 1L);
    }

    Map<String, String> files =
        copied(
            new BundlePool(file, "pools/grown.kvp", -1),
            given(BundleInput.Kind.FILE, file),
            BundleUsers.kept());

    assertThat(files).containsOnlyKeys("MANIFEST.txt");
    assertThat(files.get("MANIFEST.txt"))
        .startsWith("not read: " + file)
        .contains("grew past 64 MiB while read");
  }
}
