package dev.kvprov.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code kvprov clean} on a provisioned root: the markers (and logs) go, nothing else. */
class CleanCommandTest {
  static final String VM = "a1b2c3d4-1111-4222-8333-444455556666";

  @TempDir Path root;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();
  private Path state;
  private Path archive;

  @BeforeEach
  void setUp() throws Exception {
    state = Files.createDirectories(root.resolve("var/lib/kvprov"));
    archive = Files.createDirectories(state.resolve("kvp-archive"));
    for (String name :
        new String[] {VM + ".provisioned", VM + ".ready", "late-records.log", "notes.txt"}) {
      Files.writeString(state.resolve(name), "x\n");
    }
    Files.writeString(archive.resolve("pool1-1795600000.kvp"), "records");
    Files.writeString(archive.resolve("notes.txt"), "the administrator's\n");
    Files.writeString(root.resolve("outside"), "not ours\n");
    Files.createSymbolicLink(archive.resolve("pool1-1795600001.kvp"), root.resolve("outside"));
  }

  private int run(String... args) {
    CommandLine cli = KvprovCommand.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    String[] argv = new String[args.length + 2];
    System.arraycopy(args, 0, argv, 0, args.length);
    argv[args.length] = "--root";
    argv[args.length + 1] = root.toString();
    return cli.execute(argv);
  }

  @Test
  void clean_forgetsTheMarkersOnly() {
    assertThat(run("clean")).as(err.toString()).isZero();

    assertThat(state.resolve(VM + ".provisioned")).doesNotExist();
    assertThat(state.resolve(VM + ".ready")).doesNotExist();
    assertThat(state.resolve("late-records.log")).exists();
    assertThat(state.resolve("notes.txt")).exists();
    assertThat(archive.resolve("pool1-1795600000.kvp")).exists();
    assertThat(out.toString()).contains("removed " + state.resolve(VM + ".ready"));

    out.getBuffer().setLength(0);
    assertThat(run("clean")).isZero();
    assertThat(out.toString()).isEqualTo("nothing to clean\n");
  }

  @Test
  void clean_forgetsAzureInitsMarkerToo_andNothingElseOfItsDirectory() throws Exception {
    Path azureInit = Files.createDirectories(root.resolve("var/lib/azure-init"));
    Files.createFile(azureInit.resolve(VM + ".provisioned"));
    Files.writeString(azureInit.resolve("other-state"), "azure-init's\n");

    assertThat(run("clean")).as(err.toString()).isZero();

    assertThat(azureInit.resolve(VM + ".provisioned")).doesNotExist();
    assertThat(azureInit.resolve("other-state")).exists();
    assertThat(out.toString()).contains("removed " + azureInit.resolve(VM + ".provisioned"));
  }

  @Test
  void cleanLogs_alsoRemovesTheArchivesAndLog_neverFollowingALink() {
    assertThat(run("clean", "--logs", "--dry-run")).isZero();
    assertThat(out.toString()).contains("would remove " + archive.resolve("pool1-1795600001.kvp"));
    assertThat(state.resolve(VM + ".ready")).exists();

    assertThat(run("clean", "--logs")).as(err.toString()).isZero();

    assertThat(state.resolve(VM + ".ready")).doesNotExist();
    assertThat(state.resolve("late-records.log")).doesNotExist();
    assertThat(archive.resolve("pool1-1795600000.kvp")).doesNotExist();
    assertThat(archive.resolve("pool1-1795600001.kvp")).doesNotExist();
    assertThat(root.resolve("outside")).hasContent("not ours");
    assertThat(state.resolve("notes.txt")).exists();
    assertThat(archive.resolve("notes.txt")).exists();
  }

  @Test
  void cleanLogs_emptiesThePool_andLeavesNoArchiveOfIt() throws Exception {
    Path kvp = Files.createDirectories(root.resolve("var/lib/hyperv"));
    dev.kvprov.kvp.PoolFile pool = dev.kvprov.kvp.PoolFile.open(kvp, 1);
    pool.append(new dev.kvprov.kvp.KvpRecord("template-vm", "web-template, 10.0.0.4"));
    Files.setLastModifiedTime(
        kvp.resolve(".kvp_pool_1"), java.nio.file.attribute.FileTime.fromMillis(0));

    assertThat(run("clean", "--logs")).as(err.toString()).isZero();

    assertThat(out.toString()).contains("emptied " + kvp.resolve(".kvp_pool_1") + " (1 records)");
    assertThat(Files.size(kvp.resolve(".kvp_pool_1"))).isZero();
    try (var left = Files.list(archive)) {
      assertThat(left.map(p -> p.getFileName().toString())).containsExactly("notes.txt");
    }
  }
}
