package dev.kvprov.agent;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/** The plain {@code provision} lines read without picocli mean what picocli reads in them. */
class ProvisionLineTest {
  @TempDir Path dir;

  /** What a reading of the line decided, field by field. */
  private record Reading(
      Path root, Path config, Path mediaDir, String only, String skip, boolean force, boolean off) {
    static Reading of(ProvisionCommand c) {
      return new Reading(
          c.options.root,
          c.options.config,
          c.mediaOptions.mediaDir,
          c.only,
          c.skip,
          c.force,
          c.offline);
    }
  }

  private static Reading picocli(String[] args) {
    CommandLine cli = KvprovCommand.commandLine(args);
    CommandLine.ParseResult parsed = cli.parseArgs(args);
    return Reading.of((ProvisionCommand) parsed.subcommand().commandSpec().userObject());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "provision",
        "provision --root /mnt/image --config sim.toml --media-dir ./media",
        "provision --root=/mnt/image --config=/etc/x.d --media-dir=m",
        "provision --only ssh-keys --force",
        "provision --skip user,password,sudoers --offline --media-dir m",
        "provision --offline --force --root r --only hostname,ssh-keys",
      })
  void plainLines_areReadAsPicocliReadsThem(String line) {
    String[] args = line.split(" ");

    assertThat(ProvisionLine.parse(args)).map(Reading::of).contains(picocli(args));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "status",
        "provision --help",
        "provision -h",
        "provision --version",
        "provision --groups wheel,adm",
        "provision --root /a --root /b",
        "provision --force --force",
        "provision --force=true",
        "provision --bogus",
        "provision --ro /a",
        "provision @args.txt",
        "provision --root @args.txt",
        "provision stray",
        "provision --root",
        "provision --root --force",
        "provision --only nope",
        "provision --only hostname --skip user",
        "provision --config=",
        "provision -- --root",
      })
  void everyOtherLine_isLeftToPicocli(String line) {
    String[] args = line.isEmpty() ? new String[0] : line.split(" ");

    assertThat(ProvisionLine.parse(args)).isEmpty();
  }

  @Test
  void aLineLeftToPicocli_keepsPicocliAnswer() {
    PrintStream saved = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setErr(new PrintStream(err, true, UTF_8));
    int exit;
    try {
      exit = Main.run(new String[] {"provision", "--only", "nope"});
    } finally {
      System.setErr(saved);
    }

    assertThat(exit).isEqualTo(ExitCode.USAGE.code);
    assertThat(err.toString(UTF_8)).contains("nope").contains("Usage: kvprov provision");
  }

  @Test
  void aFailedRunOnTheFastPath_endsAsUnderPicocli() throws Exception {
    // An image build whose media directory is missing: the run fails, not the line.
    int fast = quietly(() -> Main.run(offlineRun(dir.resolve("fast"))));
    int slow = quietly(() -> KvprovCommand.execute(offlineRun(dir.resolve("picocli"))));

    assertThat(fast).isEqualTo(slow).isNotZero();
  }

  private static String[] offlineRun(Path root) throws Exception {
    Files.createDirectories(root);
    return new String[] {
      "provision",
      "--root",
      root.toString(),
      "--offline",
      "--media-dir",
      root.resolve("no").toString()
    };
  }

  private interface Run {
    int run() throws Exception;
  }

  private static int quietly(Run run) throws Exception {
    PrintStream saved = System.err;
    System.setErr(new PrintStream(new ByteArrayOutputStream(), true, UTF_8));
    try {
      return run.run();
    } finally {
      System.setErr(saved);
    }
  }
}
