package dev.kvprov.inspect.bundle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.fixtures.Fixtures;
import dev.kvprov.inspect.TestBundle;
import dev.kvprov.inspect.cli.KvpCommand;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class BundleKvpFilesTest {
  @TempDir Path dir;

  @Test
  void eachCommandsOutput_stderr_andExitStatus_goIn_thenTheTimelinePage() throws Exception {
    Path pool = Files.write(dir.resolve("pool"), Fixtures.bytes(Fixtures.CLOUD_INIT_POOL));
    BundleView view = new BundleView(List.of("--file", pool.toString()), Optional.empty(), dir);

    Map<String, String> files;
    try (TestBundle bundle = new TestBundle(dir)) {
      new BundleKvpFiles(view, BundleKvpFilesTest::kvp, BundleUsers.kept(), bundle.files).add();
      files = bundle.finish();
    }

    assertThat(files.keySet())
        .containsExactly(
            "kvp/report.txt",
            "kvp/tree.txt",
            "kvp/list-wide.txt",
            "kvp/doctor.txt",
            "kvp/timeline.txt",
            "kvp/timeline.html",
            "MANIFEST.txt");
    assertThat(files.get("kvp/list-wide.txt"))
        .startsWith("$ kvp list --wide --file " + pool + "\n")
        .containsPattern("\n--- exit status [01]\n$")
        .doesNotContain("\u001b[");
    assertThat(files.get("kvp/timeline.html")).contains("<html");
    assertThat(files.get("MANIFEST.txt"))
        .contains("added kvp/tree.txt (", "from kvp tree)", "from timeline page)");
  }

  @Test
  void anInputTooLarge_makesNoKvpFiles_andSaysWhy() throws Exception {
    Map<String, String> files;
    try (TestBundle bundle = new TestBundle(dir)) {
      new BundleKvpFiles(
              new BundleView(List.of(), Optional.empty(), dir),
              BundleKvpFilesTest::kvp,
              BundleUsers.kept(),
              bundle.files)
          .add();
      files = bundle.finish();
    }

    assertThat(files.get("MANIFEST.txt"))
        .isEqualTo("not made: kvp/ (the input is more than 64 MiB: more than a pool holds)\n");
  }

  /** kvp's commands as the bundle command runs them. */
  private static int kvp(List<String> args, java.io.PrintWriter out, java.io.PrintWriter err) {
    String[] argv = args.toArray(String[]::new);
    CommandLine cli = KvpCommand.commandLine(argv);
    cli.setOut(out);
    cli.setErr(err);
    return cli.execute(argv);
  }
}
