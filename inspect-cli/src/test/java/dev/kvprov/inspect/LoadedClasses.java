package dev.kvprov.inspect;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A kvp run in a JVM of its own, without a start-up archive, and the classes it loaded: what a
 * command costs at start-up, for the tests that keep libraries off a command's path.
 *
 * @param output what the run printed, stdout and stderr together
 * @param classes the classes it loaded, by name, in order
 */
public record LoadedClasses(String output, List<String> classes) {
  /** Runs {@code kvp ARGS}, logging to a file in {@code dir}; the run must succeed. */
  public static LoadedClasses ofKvp(Path dir, String... args) throws Exception {
    return ofKvp(dir, List.of(), args);
  }

  /** {@link #ofKvp(Path, String...)} in a JVM given {@code jvmOptions} too. */
  public static LoadedClasses ofKvp(Path dir, List<String> jvmOptions, String... args)
      throws Exception {
    Path log = dir.resolve("classes.log");
    Files.deleteIfExists(log);
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-Xshare:off");
    command.add("-Xlog:class+load=info:file=" + log);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add("dev.kvprov.inspect.cli.KvpCommand");
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    List<String> classes = new ArrayList<>();
    for (String line : Files.readAllLines(log, UTF_8)) {
      // "[0.012s][info][class,load] java.lang.Object source: shared objects file"
      int at = line.indexOf("] ", line.indexOf("class,load"));
      if (at >= 0) {
        classes.add(line.substring(at + 2).split(" ", 2)[0]);
      }
    }
    return new LoadedClasses(out, classes);
  }
}
