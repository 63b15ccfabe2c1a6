package dev.kvprov.inspect;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.fixtures.Fixtures;
import dev.kvprov.inspect.cli.KvpCommandTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every read command's whole output on the real cloud-init pool, against files checked in under
 * {@code src/test/resources/golden}: the output contract of docs/inspect.md, byte for byte. After a
 * deliberate change, rewrite them with {@code ./mvnw -pl inspect-cli -am verify
 * -Dtest=GoldenOutputTest -Dkvprov.golden.update=true} and review the diff.
 */
class GoldenOutputTest {
  static final Path GOLDEN = Path.of("src/test/resources/golden");

  static List<List<String>> commands() {
    return List.of(
        List.of("list"),
        List.of("list", "--json"),
        List.of("list", "--raw", "--json"),
        List.of("tree"),
        List.of("tree", "--json"),
        List.of("blame", "--json"),
        List.of("timeline"),
        List.of("timeline", "--json"),
        List.of("report", "--json"),
        List.of("doctor", "--json"),
        List.of("decode", "--json"));
  }

  @ParameterizedTest
  @MethodSource("commands")
  void cloudInitFixture(List<String> command) throws Exception {
    check("cloud-init-22.4.2", KvpCommandTest.CLOUD_INIT_POOL, command);
  }

  @ParameterizedTest
  @MethodSource("commands")
  void azureInitDiagFixture(List<String> command) throws Exception {
    check("azure-init-diag", Fixtures.path(Fixtures.AZURE_INIT_DIAG_POOL), command);
  }

  /** Demo boots (made by {@code bin/kvprov demo --scenario S}, all with the same --dir). */
  static final Path DEMO = Path.of("src/test/resources/pools");

  static List<List<String>> diffs() {
    String ok = DEMO.resolve("demo-ok.kvp").toString();
    String flaky = DEMO.resolve("demo-flaky-imds.kvp").toString();
    String failed = DEMO.resolve("demo-imds-down-no-media.kvp").toString();
    return List.of(
        List.of("diff", ok, flaky),
        List.of("diff", "--json", ok, flaky),
        List.of("diff", flaky, ok),
        List.of("diff", ok, failed));
  }

  @ParameterizedTest
  @MethodSource("diffs")
  void demoBoots(List<String> command) throws Exception {
    String name =
        command.stream()
            .map(a -> a.replace("--", "").replaceFirst("^.*/demo-(.*)\\.kvp$", "$1"))
            .reduce((x, y) -> x + "_" + y)
            .orElseThrow();
    check(GOLDEN.resolve("demo." + name + ".txt"), command.toArray(String[]::new));
  }

  private static void check(String fixture, Path pool, List<String> command) throws Exception {
    String[] args = new String[command.size() + 2];
    command.toArray(args);
    args[command.size()] = "--file";
    args[command.size() + 1] = pool.toString();
    check(
        GOLDEN.resolve(fixture + "." + String.join("_", command).replace("--", "") + ".txt"), args);
  }

  private static void check(Path golden, String... args) throws Exception {
    CliRun run = CliRun.of(args);
    String actual = "exit " + run.exit() + "\n" + run.out();

    if (Boolean.getBoolean("kvprov.golden.update")) {
      Files.writeString(golden, actual, UTF_8);
    }

    assertThat(actual).isEqualTo(Files.readString(golden, UTF_8));
  }
}
