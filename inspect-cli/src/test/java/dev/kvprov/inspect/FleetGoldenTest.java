package dev.kvprov.inspect;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code kvp fleet}'s whole output on a small fleet of demo boots' host exports
 * (src/test/resources/fleet), against {@code golden/fleet.demo*.txt}, as {@link GoldenOutputTest}
 * does for one pool (and rewritten the same way, {@code -Dkvprov.golden.update=true}).
 */
class FleetGoldenTest {
  @ParameterizedTest
  @ValueSource(strings = {"", "--json"})
  void demoFleet(String option) throws Exception {
    List<String> args =
        option.isEmpty()
            ? List.of("fleet", "src/test/resources/fleet")
            : List.of("fleet", option, "src/test/resources/fleet");
    CliRun run = CliRun.of(args.toArray(String[]::new));
    String actual = "exit " + run.exit() + "\n" + run.out();
    Path golden =
        GoldenOutputTest.GOLDEN.resolve(
            "fleet.demo" + (option.isEmpty() ? "" : "_" + option.replace("--", "")) + ".txt");

    if (Boolean.getBoolean("kvprov.golden.update")) {
      Files.writeString(golden, actual, UTF_8);
    }

    assertThat(actual).isEqualTo(Files.readString(golden, UTF_8));
  }
}
