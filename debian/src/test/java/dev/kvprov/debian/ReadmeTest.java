package dev.kvprov.debian;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the README shows is what the code does: its sample {@code kvp tree} is a real demo boot's
 * (times aside, which differ from run to run), and its layout table names every folder and every
 * package there is. The module that packages both programs checks them, as it does the man pages.
 */
class ReadmeTest {
  private static final Path REPOSITORY = Path.of("").toAbsolutePath().getParent();

  /** A time on a tree line, or a delay in a message: different on every run. */
  private static final Pattern SECONDS = Pattern.compile("[+-]?\\d+\\.\\d+ ?s\\b");

  @TempDir Path dir;

  private static String readme() throws IOException {
    return Files.readString(REPOSITORY.resolve("README.md"), UTF_8);
  }

  /** The lines of the first fenced block after the paragraph that starts with {@code intro}. */
  private static List<String> sampleAfter(String readme, String intro) {
    int at = readme.indexOf(intro);
    assertThat(at).as("README paragraph \"%s\"", intro).isNotNegative();
    int open = readme.indexOf("```\n", at);
    int close = readme.indexOf("\n```", open + 4);
    return readme.substring(open + 4, close).lines().toList();
  }

  private static List<String> withoutTimes(List<String> lines) {
    return lines.stream().map(l -> SECONDS.matcher(l).replaceAll("#s").stripTrailing()).toList();
  }

  /** Runs {@code java -jar JAR ARGS}; its standard output, after checking it ended with 0. */
  private String run(Path jar, Map<String, String> environment, String... args) throws Exception {
    assertThat(jar).as("built by the reactor before this module").isRegularFile();
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar",
                jar.toString()));
    command.addAll(List.of(args));
    Path out = Files.createTempFile(dir, "out", ".txt");
    Path err = Files.createTempFile(dir, "err", ".txt");
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
    builder.environment().putAll(environment);
    Process p = builder.start();
    p.getOutputStream().close();
    assertThat(p.waitFor(5, TimeUnit.MINUTES)).as("%s ended", command).isTrue();
    assertThat(p.exitValue()).as("%s: %s", command, Files.readString(err)).isZero();
    return Files.readString(out, UTF_8);
  }

  @Test
  void theSampleTree_isADemoBootsTree() throws Exception {
    List<String> sample =
        sampleAfter(readme(), "A first boot with a flaky IMDS, as `kvp tree` shows it");
    assertThat(sample).as("the sample names its demo").isNotEmpty();
    Path demo = dir.resolve("demo");

    run(
        REPOSITORY.resolve("agent/target/kvprov.jar"),
        Map.of(),
        "demo",
        "--scenario",
        "flaky-imds",
        "--dir",
        demo.toString());
    String tree =
        run(
            REPOSITORY.resolve("inspect-cli/target/kvp.jar"),
            Map.of("COLUMNS", "100"),
            "tree",
            "--dir",
            demo.resolve("root/var/lib/hyperv").toString());

    assertThat(withoutTimes(sample))
        .as("README.md's sample, times aside; the demo's tree is:%n%s", tree)
        .isEqualTo(withoutTimes(tree.lines().toList()));
  }

  /** The layout table: each row's folder, and the packages its text names in backquotes. */
  private static Map<String, String> layoutRows(String readme) {
    int at = readme.indexOf("## Layout");
    String table = readme.substring(at, readme.indexOf("\n## ", at + 1));
    Map<String, String> rows = new java.util.LinkedHashMap<>();
    Matcher row = Pattern.compile("(?m)^\\| `([^`]+)/` \\| (.*) \\|$").matcher(table);
    while (row.find()) {
      rows.put(row.group(1), row.group(2));
    }
    return rows;
  }

  @Test
  void theLayoutTable_namesEveryFolder_andEveryPackageOfAModule() throws Exception {
    Map<String, String> rows = layoutRows(readme());
    TreeSet<String> folders = new TreeSet<>();
    try (Stream<Path> top = Files.list(REPOSITORY)) {
      top.filter(Files::isDirectory)
          .map(p -> p.getFileName().toString())
          .filter(n -> !n.equals(".git") && !n.equals(".mvn") && !n.equals("target"))
          .filter(n -> !n.startsWith(".") || n.equals(".ci"))
          .forEach(folders::add);
    }

    assertThat(new TreeSet<>(rows.keySet())).isEqualTo(folders);
    for (Map.Entry<String, String> row : rows.entrySet()) {
      Matcher base = Pattern.compile("package `(dev\\.kvprov\\.[a-z.]+)`").matcher(row.getValue());
      if (!base.find()) {
        continue;
      }
      // a row that names its module's package names each package below it, and only those
      Path main = REPOSITORY.resolve(row.getKey()).resolve("src/main/java");
      Path root = main.resolve(base.group(1).replace('.', '/'));
      TreeSet<String> packages = new TreeSet<>();
      try (Stream<Path> all = Files.walk(root)) {
        all.filter(Files::isDirectory)
            .filter(d -> !d.equals(root))
            .filter(ReadmeTest::holdsJava)
            .map(d -> root.relativize(d).toString().replace('/', '.'))
            .forEach(packages::add);
      }
      String rest = row.getValue().substring(base.end());
      TreeSet<String> named = new TreeSet<>();
      Matcher name = Pattern.compile("`([a-z][a-z.]*)`").matcher(rest);
      while (name.find()) {
        named.add(name.group(1));
      }
      assertThat(named).as("the packages the %s row names", row.getKey()).isEqualTo(packages);
    }
  }

  private static boolean holdsJava(Path directory) {
    try (Stream<Path> files = Files.list(directory)) {
      return files.anyMatch(f -> f.toString().endsWith(".java"));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
