package dev.kvprov.inspect.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.fixtures.Fixtures;
import dev.kvprov.inspect.CliRun;
import dev.kvprov.inspect.RescuedDisk;
import dev.kvprov.inspect.pool.HostExportTest;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commands that change a pool look at what they are given first, as the read commands do: a
 * host export, a log, a tarball, OTLP JSON or noise is left byte for byte as it was (one line, exit
 * 3); a missing file becomes a new pool; a pool that is not this machine's is never emptied without
 * a copy; bytes that are not UTF-8 are never stored.
 */
public class WriteTargetsTest {
  @TempDir Path dir;

  private static final List<List<String>> WRITES =
      List.of(
          List.of("clear"),
          List.of("clear", "--if-stale"),
          List.of("append"),
          List.of("set", "Support-Ticket", "4711"),
          List.of("delete", "Support-Ticket"));

  private static CliRun withStdin(byte[] bytes, List<String> args) {
    InputStream saved = System.in;
    System.setIn(new ByteArrayInputStream(bytes));
    try {
      return CliRun.of(args.toArray(String[]::new));
    } finally {
      System.setIn(saved);
    }
  }

  private void leftAsItIs(Path file, String saying) throws Exception {
    byte[] before = Files.readAllBytes(file);
    for (List<String> command : WRITES) {
      List<String> args = new ArrayList<>(command);
      args.addAll(List.of("--file", file.toString()));
      CliRun run = withStdin("step=done\n".getBytes(UTF_8), args);

      assertThat(run.exit()).as("%s on %s: %s", command, file, run.err()).isEqualTo(3);
      assertThat(run.err().lines()).as("%s on %s", command, file).hasSize(1);
      assertThat(run.err())
          .as("%s on %s", command, file)
          .startsWith("kvp " + command.get(0) + ": " + file + ": ")
          .contains(saying)
          .contains("left as it is");
      assertThat(run.out()).as("%s on %s", command, file).isEmpty();
      assertThat(Files.readAllBytes(file)).as("%s on %s", command, file).isEqualTo(before);
    }
  }

  @Test
  void aHostExport_isLeftAsItIs() throws Exception {
    StringBuilder export = new StringBuilder();
    for (int i = 0; export.length() < 33_000; i++) {
      export.append(HostExportTest.instance("key" + i, "value " + i, i % 2 == 0)).append('\n');
    }
    leftAsItIs(
        Files.writeString(dir.resolve("vm-kvp.xml"), export), "looks like a host-side export");
  }

  @Test
  void text_isLeftAsItIs() throws Exception {
    leftAsItIs(
        Files.writeString(dir.resolve("notes.txt"), "the VM did not boot\n".repeat(400)),
        "is text");
  }

  /** A tarball of a pool and a note, made by {@code tar} itself, in {@code dir}. */
  public static Path tarball(Path dir) throws Exception {
    Path inside = Files.createDirectories(dir.resolve("evidence"));
    Files.write(inside.resolve(".kvp_pool_1"), Fixtures.bytes(Fixtures.CLOUD_INIT_POOL));
    Files.writeString(inside.resolve("notes.txt"), "ticket 4711\n");
    Path tar = dir.resolve("evidence.tar");
    Process p =
        new ProcessBuilder("tar", "-cf", tar.toString(), "-C", dir.toString(), "evidence")
            .redirectErrorStream(true)
            .start();
    assertThat(p.waitFor()).as(new String(p.getInputStream().readAllBytes(), UTF_8)).isZero();
    return tar;
  }

  @Test
  void aTarball_isLeftAsItIs() throws Exception {
    leftAsItIs(tarball(dir), "looks like a tar or gzip archive");
  }

  @Test
  void otlpJson_isLeftAsItIs() throws Exception {
    Path otlp = dir.resolve("spans.json");
    CliRun export =
        CliRun.of(
            "export",
            "--otlp-json",
            otlp.toString(),
            "--file",
            Fixtures.path(Fixtures.CLOUD_INIT_POOL).toString());
    assertThat(export.exit()).as(export.err()).isZero();
    leftAsItIs(otlp, "looks like OTLP JSON");
  }

  @Test
  void noise_isLeftAsItIs() throws Exception {
    byte[] noise = new byte[33_333]; // not a whole number of records: no "torn tail" cut off
    new Random(24).nextBytes(noise);
    leftAsItIs(Files.write(dir.resolve("noise.bin"), noise), "is not a KVP pool");
  }

  @Test
  void aMissingFile_becomesANewPool() throws Exception {
    Path pool = dir.resolve("new.kvp");

    CliRun run = CliRun.of("set", "Support-Ticket", "4711", "--file", pool.toString());

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(PoolFile.builder().file(pool).build().read().records())
        .containsExactly(new KvpRecord("Support-Ticket", "4711"));
  }

  @Test
  void clear_ofAPoolFile_keepsACopyBesideIt_andSaysWhere() throws Exception {
    Path pool = Files.write(dir.resolve("vm-4711.kvp"), Fixtures.bytes(Fixtures.CLOUD_INIT_POOL));

    CliRun run = CliRun.of("clear", "--file", pool.toString());

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(Files.size(pool)).isZero();
    List<Path> copies;
    try (Stream<Path> files = Files.list(dir)) {
      copies = files.filter(f -> !f.equals(pool)).toList();
    }
    assertThat(copies).hasSize(1);
    assertThat(run.out())
        .isEqualTo("cleared 12 record(s) from " + pool + "; a copy is in " + copies.get(0) + "\n");
    assertThat(Files.readAllBytes(copies.get(0)))
        .isEqualTo(Fixtures.bytes(Fixtures.CLOUD_INIT_POOL));
  }

  @Test
  void clear_ofARescuedDisk_keepsTheCopyInItsArchive_prunesNone_andKvpRootStillShowsIt()
      throws Exception {
    Path root =
        RescuedDisk.of(
            dir,
            Fixtures.bytes(Fixtures.AZURE_INIT_DIAG_POOL),
            Fixtures.bytes(Fixtures.CLOUD_INIT_POOL));
    Path archive = root.resolve("var/lib/kvprov/kvp-archive");
    for (int boot = 1; boot <= 6; boot++) { // more than kvprov's own archive keeps
      Files.write(
          archive.resolve("pool1-" + (1_700_000_000 + boot) + ".kvp"),
          Fixtures.bytes(Fixtures.AZURE_INIT_DIAG_POOL));
    }
    long before;
    try (Stream<Path> files = Files.list(archive)) {
      before = files.count();
    }

    CliRun run = CliRun.of("clear", "--root", root.toString());

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out()).contains("; a copy is in " + archive.resolve(""));
    assertThat(Files.size(root.resolve("var/lib/hyperv/.kvp_pool_1"))).isZero();
    try (Stream<Path> files = Files.list(archive)) {
      assertThat(files.count()).isEqualTo(before + 1);
    }
    CliRun dump = CliRun.of("dump", "--root", root.toString());
    String lastBoot =
        CliRun.of("dump", "--file", Fixtures.path(Fixtures.CLOUD_INIT_POOL).toString()).out();
    assertThat(dump.out()).contains(lastBoot);
  }

  @Test
  void onlyThisMachinesOwnPools_areClearedWithoutACopy() {
    assertThat(ClearCommand.isLivePool(Path.of("/var/lib/hyperv/.kvp_pool_1"))).isTrue();
    assertThat(ClearCommand.isLivePool(Path.of("/var/lib/hyperv/../hyperv/.kvp_pool_3"))).isTrue();
    assertThat(ClearCommand.isLivePool(Path.of("/mnt/rescued/var/lib/hyperv/.kvp_pool_1")))
        .isFalse();
    assertThat(ClearCommand.isLivePool(Path.of("/var/lib/hyperv/.kvp_pool_7"))).isFalse();
    assertThat(ClearCommand.isLivePool(Path.of("vm-kvp.xml"))).isFalse();
  }

  @Test
  void append_ofBytesThatAreNotUtf8_isRefused_andThePoolUntouched() throws Exception {
    Path pool = Files.write(dir.resolve(".kvp_pool_1"), Fixtures.bytes(Fixtures.CLOUD_INIT_POOL));
    byte[] lines = {'o', 'k', '=', '1', '\n', 'b', 'a', 'd', '=', 'a', (byte) 0xFF, 'b', '\n'};

    CliRun run = withStdin(lines, List.of("append", "--file", pool.toString()));

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err())
        .isEqualTo(
            "kvp append: line 2: not valid UTF-8 (bytes that are no character)\n"
                + "kvp append: nothing written\n");
    assertThat(Files.readAllBytes(pool)).isEqualTo(Fixtures.bytes(Fixtures.CLOUD_INIT_POOL));
  }

  @Test
  void append_ofAKeyThatIsNotUtf8_isRefused() throws Exception {
    Path pool = dir.resolve(".kvp_pool_1");
    byte[] lines = {(byte) 0xC3, '(', '=', 'v', '\n'};

    CliRun run = withStdin(lines, List.of("append", "--file", pool.toString()));

    assertThat(run.exit()).isEqualTo(2);
    assertThat(Files.exists(pool) ? Files.size(pool) : 0).isZero();
  }

  @Test
  void append_ofRealUtf8_isStoredAsItIs() throws Exception {
    Path pool = dir.resolve(".kvp_pool_1");

    CliRun run =
        withStdin(
            "größe=ünïcödé \uFFFD\n".getBytes(UTF_8), List.of("append", "--file", pool.toString()));

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(PoolFile.builder().file(pool).build().read().records())
        .containsExactly(new KvpRecord("größe", "ünïcödé \uFFFD"));
  }

  /** {@code kvp set} in a JVM of its own, its arguments bytes from the shell, as a person's. */
  @Test
  void set_ofArgumentsThatAreNotUtf8_isRefused_andThePoolUntouched() throws Exception {
    Path pool = Files.write(dir.resolve(".kvp_pool_1"), Fixtures.bytes(Fixtures.CLOUD_INIT_POOL));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    for (String args : List.of("key \"$(printf 'a\\377b')\"", "\"$(printf 'k\\303')\" value")) {
      ProcessBuilder builder =
          new ProcessBuilder(
              "/bin/sh",
              "-c",
              "exec \"$0\" -cp \"$1\" "
                  + KvpCommand.class.getName()
                  + " set "
                  + args
                  + " --file \"$2\"",
              java,
              classpath.replace(File.pathSeparator, ":"),
              pool.toString());
      builder.environment().put("LC_ALL", "C.UTF-8");
      Process p = builder.start();
      String err = new String(p.getErrorStream().readAllBytes(), UTF_8);
      p.getInputStream().readAllBytes();

      assertThat(p.waitFor()).as(args + ": " + err).isEqualTo(2);
      assertThat(err).contains("is not valid UTF-8").contains("nothing written");
      assertThat(Files.readAllBytes(pool)).isEqualTo(Fixtures.bytes(Fixtures.CLOUD_INIT_POOL));
    }
  }
}
