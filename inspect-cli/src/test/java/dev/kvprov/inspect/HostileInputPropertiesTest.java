package dev.kvprov.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import picocli.CommandLine;

/** Every read command, fed random and mutated pools: an answer, never an unchecked exception. */
class HostileInputPropertiesTest {
  private static final List<List<String>> COMMANDS =
      List.of(
          List.of("list", "--json"),
          List.of("list"),
          List.of("tree", "--json"),
          List.of("tree"),
          List.of("report"),
          List.of("doctor", "--json"),
          List.of("decode"),
          List.of("watch", "--interval", "1ms", "--timeout", "20ms"));

  @Property(tries = 150)
  void readCommands_neverThrow(@ForAll("pools") byte[] pool) throws Exception {
    Path file = Files.createTempFile("kvp-fuzz", ".kvp");
    try {
      Files.write(file, pool);
      for (List<String> command : COMMANDS) {
        Throwable[] thrown = new Throwable[1];
        CommandLine cli = KvpCommand.commandLine();
        cli.setOut(new PrintWriter(new StringWriter()));
        cli.setErr(new PrintWriter(new StringWriter()));
        cli.setExecutionExceptionHandler(
            (e, line, parsed) -> {
              thrown[0] = e;
              return 99;
            });
        String[] args = new String[command.size() + 2];
        for (int i = 0; i < command.size(); i++) {
          args[i] = command.get(i);
        }
        args[command.size()] = "--file";
        args[command.size() + 1] = file.toString();

        int exit = cli.execute(args);

        assertThat(thrown[0]).as("%s threw", command).isNull();
        assertThat(exit).as("%s", command).isIn(0, 1);
      }
    } finally {
      Files.deleteIfExists(file);
    }
  }

  /** The cloud-init fixture with bytes flipped, cut short or pieces shuffled, or pure noise. */
  @Provide
  Arbitrary<byte[]> pools() throws Exception {
    byte[] fixture = Files.readAllBytes(KvpCommandTest.CLOUD_INIT_POOL);
    Arbitrary<byte[]> mutated =
        Arbitraries.integers()
            .between(0, fixture.length - 1)
            .list()
            .ofMinSize(1)
            .ofMaxSize(40)
            .flatMap(
                positions ->
                    Arbitraries.bytes()
                        .list()
                        .ofSize(positions.size())
                        .map(
                            values -> {
                              byte[] copy = fixture.clone();
                              for (int i = 0; i < positions.size(); i++) {
                                copy[positions.get(i)] = values.get(i);
                              }
                              return copy;
                            }));
    Arbitrary<byte[]> truncated =
        Arbitraries.integers()
            .between(0, fixture.length)
            .map(n -> java.util.Arrays.copyOf(fixture, n));
    Arbitrary<byte[]> noise = Arbitraries.bytes().array(byte[].class).ofMaxSize(3 * 2560 + 17);
    return Arbitraries.frequencyOf(
        Tuple.of(5, mutated), Tuple.of(2, truncated), Tuple.of(2, noise));
  }
}
