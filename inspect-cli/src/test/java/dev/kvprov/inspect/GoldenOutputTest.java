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

  private static void check(String fixture, Path pool, List<String> command) throws Exception {
    String[] args = new String[command.size() + 2];
    command.toArray(args);
    args[command.size()] = "--file";
    args[command.size() + 1] = pool.toString();
    CliRun run = CliRun.of(args);
    String actual = "exit " + run.exit() + "\n" + run.out();
    Path golden =
        GOLDEN.resolve(fixture + "." + String.join("_", command).replace("--", "") + ".txt");

    if (Boolean.getBoolean("kvprov.golden.update")) {
      Files.writeString(golden, actual, UTF_8);
    }

    assertThat(actual).isEqualTo(Files.readString(golden, UTF_8));
  }
}
