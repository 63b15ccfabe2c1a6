package dev.kvprov.agent;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import picocli.CommandLine;

/**
 * The training run for {@code kvprov}'s class-data-sharing archive: a whole demo provisioning (a
 * throwaway root, the simulator on loopback, real useradd when run as root) plus the commands a
 * first boot touches, so that the archive holds what {@code kvprov provision} loads. The Debian
 * package and {@code bin/kvprov} run it once with {@code -XX:DumpLoadedClassList}.
 *
 * <p>Usage: {@code java -cp kvprov.jar dev.kvprov.agent.CdsTraining}. Prints nothing; exits 0 even
 * when the demo fails (not root): the classes are loaded either way.
 */
public final class CdsTraining {
  private CdsTraining() {}

  public static void main(String[] args) throws IOException {
    Path dir = Files.createTempDirectory("kvprov-cds-training");
    PrintStream out = System.out;
    PrintStream err = System.err;
    PrintStream nowhere = new PrintStream(OutputStream.nullOutputStream());
    System.setOut(nowhere);
    System.setErr(nowhere);
    try {
      Warmup.run(); // what kvprov provision's head start loads (some of it the demo does not)
      for (String[] run :
          new String[][] {
            {"--help"}, {"provision", "--help"}, {"config"}, {"demo", "--dir", dir.toString()}
          }) {
        CommandLine cli = KvprovCommand.commandLine();
        cli.setOut(new java.io.PrintWriter(nowhere));
        cli.setErr(new java.io.PrintWriter(nowhere));
        cli.execute(run);
      }
    } finally {
      System.setOut(out);
      System.setErr(err);
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }
}
