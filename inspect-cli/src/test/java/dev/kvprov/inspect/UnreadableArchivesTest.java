package dev.kvprov.inspect;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kvprov.fixtures.Fixtures;
import dev.kvprov.inspect.cli.KvpCommand;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rescued disk read by an ordinary user: kvprov's archives of earlier boots sit in a directory
 * only root may enter. kvp must say so, with the fix, rather than show the last boot as if it were
 * the only one. As root, the commands run as {@code nobody} (setpriv), since root reads anything.
 */
class UnreadableArchivesTest {
  @TempDir(cleanup = org.junit.jupiter.api.io.CleanupMode.ALWAYS)
  Path dir;

  private Path root;
  private Path classpath;

  @BeforeEach
  void aRescuedDiskWithAnArchiveOnlyRootMayEnter() throws IOException {
    root =
        RescuedDisk.of(
            dir,
            Fixtures.bytes(Fixtures.AZURE_INIT_DIAG_POOL),
            Fixtures.bytes(Fixtures.CLOUD_INIT_POOL));
    for (Path p : List.of(dir, root, root.resolve("var"), root.resolve("var/lib"))) {
      Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
    Files.setPosixFilePermissions(
        root.resolve("var/lib/kvprov"), PosixFilePermissions.fromString("rwx------"));
    // The test's class path, where nobody may read it (root's Maven repository is not).
    classpath = Files.createDirectories(dir.resolve("classpath"));
    Files.setPosixFilePermissions(classpath, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  private List<String> command(String... args) throws IOException {
    List<String> command = new ArrayList<>();
    boolean root = "root".equals(System.getProperty("user.name"));
    if (root) {
      assumeTrue(
          Files.isExecutable(Path.of("/usr/bin/setpriv"))
              || System.getenv("KVPROV_REQUIRE_INTEROP") != null,
          "no setpriv to run as an ordinary user");
      command.addAll(
          List.of("/usr/bin/setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"));
    }
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(List.of("-cp", String.join(File.pathSeparator, copiedClassPath())));
    command.add(KvpCommand.class.getName());
    command.addAll(List.of(args));
    return command;
  }

  private List<String> entries;

  /** The test's class path, copied once: Surefire's own is a manifest that points into ~/.m2. */
  private List<String> copiedClassPath() throws IOException {
    if (entries != null) {
      return entries;
    }
    entries = new ArrayList<>();
    String path =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    int n = 0;
    for (String entry : path.split(File.pathSeparator)) {
      Path from = Path.of(entry);
      Path to = classpath.resolve(n++ + "-" + from.getFileName());
      if (Files.isDirectory(from)) {
        try (Stream<Path> files = Files.walk(from)) {
          for (Path f : (Iterable<Path>) files::iterator) {
            Path target = to.resolve(from.relativize(f).toString());
            if (Files.isDirectory(f)) {
              Files.createDirectories(target);
            } else {
              Files.copy(f, target);
            }
          }
        }
      } else if (Files.exists(from)) {
        Files.copy(from, to);
      }
      entries.add(to.toString());
    }
    try (Stream<Path> files = Files.walk(classpath)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Files.setPosixFilePermissions(
            f, PosixFilePermissions.fromString(Files.isDirectory(f) ? "rwxr-xr-x" : "rw-r--r--"));
      }
    }
    return entries;
  }

  private record Run(int exit, String out, String err) {}

  private Run run(String... args) throws Exception {
    Process p = new ProcessBuilder(command(args)).directory(dir.toFile()).start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), UTF_8);
    String err = new String(p.getErrorStream().readAllBytes(), UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Run(p.exitValue(), out, err);
  }

  @Test
  void anArchiveOnlyRootMayRead_isAWarningWithTheFix_andADoctorFinding() throws Exception {
    String archive = root.resolve("var/lib/kvprov/kvp-archive").toString();

    Run tree = run("tree", "--root", root.toString());
    Run doctor = run("doctor", "--json", "--root", root.toString());

    assertThat(tree.exit()).as(tree.err()).isZero();
    assertThat(tree.out()).contains("azure-ds/failing_step");
    assertThat(tree.err())
        .isEqualTo(
            "kvp tree: "
                + archive
                + ": permission denied: the archives of earlier boots there are not read"
                + " (run kvp with sudo to see every boot)\n");
    assertThat(doctor.exit()).isEqualTo(1);
    assertThat(doctor.out()).contains("\"kind\":\"archives_unreadable\"").contains(archive);
  }
}
