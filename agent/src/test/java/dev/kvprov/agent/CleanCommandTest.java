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
    Files.writeString(archive.resolve("kvp_pool_1.20261124T101010Z"), "records");
    Files.writeString(root.resolve("outside"), "not ours\n");
    Files.createSymbolicLink(archive.resolve("link"), root.resolve("outside"));
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
    assertThat(archive.resolve("kvp_pool_1.20261124T101010Z")).exists();
    assertThat(out.toString()).contains("removed " + state.resolve(VM + ".ready"));

    out.getBuffer().setLength(0);
    assertThat(run("clean")).isZero();
    assertThat(out.toString()).isEqualTo("nothing to clean\n");
  }

  @Test
  void cleanLogs_alsoRemovesTheArchivesAndLog_neverFollowingALink() {
    assertThat(run("clean", "--logs", "--dry-run")).isZero();
    assertThat(out.toString()).contains("would remove " + archive.resolve("link"));
    assertThat(state.resolve(VM + ".ready")).exists();

    assertThat(run("clean", "--logs")).as(err.toString()).isZero();

    assertThat(state.resolve(VM + ".ready")).doesNotExist();
    assertThat(state.resolve("late-records.log")).doesNotExist();
    assertThat(archive.resolve("kvp_pool_1.20261124T101010Z")).doesNotExist();
    assertThat(archive.resolve("link")).doesNotExist();
    assertThat(root.resolve("outside")).hasContent("not ours");
    assertThat(state.resolve("notes.txt")).exists();
  }
}
