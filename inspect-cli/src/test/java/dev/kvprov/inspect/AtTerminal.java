package dev.kvprov.inspect;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.inspect.cli.KvpCommand;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * {@code kvp ARGS} in a JVM of its own on a real terminal: util-linux's {@code script} gives it a
 * pseudo-terminal for stdin, stdout and stderr, as a person at tmux has. What it printed comes back
 * with the terminal's CR LF made LF; what the terminal echoes of the input is in it too.
 */
public final class AtTerminal {
  private AtTerminal() {}

  /** What the terminal showed, and the exit status of kvp (script's own, with {@code -e}). */
  public record Shown(int exit, String text) {
    public List<String> lines() {
      return text.lines().toList();
    }
  }

  /**
   * @param columns the terminal's width, as bin/kvp passes it ({@code COLUMNS})
   * @param typed what is typed at the terminal, then left open until kvp ends (may be empty)
   */
  public static Shown run(int columns, String typed, String... args) throws Exception {
    Assumptions.assumeTrue(
        Files.isExecutable(Path.of("/usr/bin/script")),
        "util-linux's script (Debian: bsdutils) is not installed");
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                KvpCommand.class.getName()));
    command.addAll(List.of(args));
    StringBuilder line = new StringBuilder();
    for (String word : command) {
      line.append(line.length() == 0 ? "" : " ").append(quoted(word));
    }
    ProcessBuilder builder =
        new ProcessBuilder("/usr/bin/script", "-qec", line.toString(), "/dev/null");
    builder.environment().put("COLUMNS", Integer.toString(columns));
    builder.environment().put("NO_COLOR", "1"); // the text alone
    builder.redirectErrorStream(true);
    Process process = builder.start();
    ByteArrayOutputStream shown = new ByteArrayOutputStream();
    Thread drain =
        new Thread(
            () -> {
              try {
                process.getInputStream().transferTo(shown);
              } catch (IOException ignored) {
                // the process ended
              }
            });
    drain.start();
    OutputStream keys = process.getOutputStream();
    if (!typed.isEmpty()) {
      keys.write(typed.getBytes(UTF_8));
      keys.flush();
    }
    boolean ended = process.waitFor(2, TimeUnit.MINUTES);
    keys.close();
    if (!ended) {
      process.destroyForcibly();
    }
    drain.join(10_000);
    assertThat(ended).as("kvp %s ended; it showed: %s", args, shown).isTrue();
    return new Shown(process.exitValue(), shown.toString(UTF_8).replace("\r\n", "\n"));
  }

  private static String quoted(String word) {
    return "'" + word.replace("'", "'\\''") + "'";
  }
}
