package dev.kvprov.inspect.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.fixtures.Fixtures;
import dev.kvprov.inspect.CliRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every command's error paths speak plain words: a usage error is one line and where to look (exit
 * 2); other errors are one line with the cause as a person says it; no Java class name, no package,
 * no stack trace anywhere.
 */
class PlainErrorsTest {
  /** What a Java class name, a package or a stack frame looks like in text. */
  private static final Pattern JAVA =
      Pattern.compile(
          "\\b(java|javax|dev\\.kvprov|io\\.opentelemetry|com\\.fasterxml|picocli)\\.[a-z]"
              + "|[A-Z][A-Za-z]*(Exception|Error)\\b|\\bat [a-z]+\\.[a-z]");

  @TempDir Path dir;

  private static final String POOL = Fixtures.path(Fixtures.CLOUD_INIT_POOL).toString();

  @Test
  void usageErrors_areOneLineAndWhereToLook_exit2() {
    List<String[]> usage =
        List.of(
            new String[] {"nosuch"},
            new String[] {"list", "--bogus"},
            new String[] {"list", "--level", "LOUD"},
            new String[] {"list", "--writer", "nobody"},
            new String[] {"list", "--since", "yesterday"},
            new String[] {"list", "--raw", "--level", "WARN"},
            new String[] {"tree", "--file", POOL, "--root", "/"},
            new String[] {"tree", "--pool", "7"},
            new String[] {"export"},
            new String[] {"export", "--otlp", "not a url", "--file", POOL},
            new String[] {"watch", "--interval", "0s"},
            new String[] {"watch", "--file", "-"},
            new String[] {"get"},
            new String[] {"set", "k"},
            new String[] {"set", "k", "x".repeat(2000), "--file", POOL},
            new String[] {"delete", "", "--file", POOL});
    for (String[] args : usage) {
      CliRun run = CliRun.of(args);
      String command = args[0].equals("nosuch") ? "kvp" : "kvp " + args[0];

      assertThat(run.exit()).as(String.join(" ", args)).isEqualTo(2);
      List<String> lines = run.err().lines().toList();
      assertThat(lines).as(String.join(" ", args)).hasSizeBetween(1, 2);
      assertThat(lines.get(0)).as(String.join(" ", args)).startsWith(command + ": ");
      if (lines.size() == 2) {
        assertThat(lines.get(1)).isEqualTo("see " + command + " --help");
      }
      assertThat(run.err()).as(String.join(" ", args)).doesNotContainPattern(JAVA);
      assertThat(run.err()).doesNotContain("Usage:");
    }
  }

  @Test
  void otherErrors_sayTheCauseInWords() throws Exception {
    Path directory = Files.createDirectory(dir.resolve("a-directory"));
    Path empty = Files.createFile(dir.resolve("empty.kvp"));
    // A server that answers in plain HTTP whatever it is sent: a TLS client's hello included.
    java.net.ServerSocket plain =
        new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
    Thread answering =
        new Thread(
            () -> {
              while (!plain.isClosed()) {
                try (java.net.Socket client = plain.accept()) {
                  client.getOutputStream().write("HTTP/1.1 400 Bad Request\r\n\r\n".getBytes());
                } catch (java.io.IOException e) {
                  return; // closed: the test is over
                }
              }
            });
    answering.start();
    String plainPort = Integer.toString(plain.getLocalPort());
    try {
      List<String[]> failing = new ArrayList<>();
      for (String command : List.of("list", "tree", "blame", "timeline", "report", "doctor")) {
        failing.add(new String[] {command, "--file", dir.resolve("missing").toString()});
        failing.add(new String[] {command, "--file", directory.toString()});
        failing.add(new String[] {command, "--host-xml", POOL});
        failing.add(new String[] {command, "--root", dir.resolve("no-disk").toString()});
      }
      failing.add(new String[] {"export", "--otlp", "http://127.0.0.1:1", "--file", POOL});
      failing.add(
          new String[] {"export", "--otlp", "https://127.0.0.1:" + plainPort, "--file", POOL});
      failing.add(new String[] {"export", "--otlp-json", "/no/such/dir/x.json", "--file", POOL});
      failing.add(new String[] {"timeline", "--html", "/no/such/dir/x.html", "--file", POOL});
      failing.add(new String[] {"get", "no-such-key", "--file", POOL});
      failing.add(new String[] {"decode", "--file", empty.toString()});
      failing.add(new String[] {"set", "k", "v", "--file", directory.toString()});
      for (String[] args : failing) {
        CliRun run = CliRun.of(args);

        assertThat(run.exit()).as(String.join(" ", args)).isIn(1, 3);
        assertThat(run.err()).as(String.join(" ", args)).isNotBlank();
        assertThat(run.err()).as(String.join(" ", args)).doesNotContainPattern(JAVA);
      }
      CliRun refused = CliRun.of("export", "--otlp", "http://127.0.0.1:1", "--file", POOL);
      assertThat(refused.err()).contains("connection refused");
      CliRun notTls =
          CliRun.of("export", "--otlp", "https://127.0.0.1:" + plainPort, "--file", POOL);
      assertThat(notTls.err()).contains("TLS");
    } finally {
      plain.close();
      answering.join();
    }
  }

  @Test
  void aDefect_isOneLineInWords() {
    assertThat(Defects.describe(new NullPointerException("Cannot invoke \"java.lang.String\"")))
        .isEqualTo("a value was missing where one is needed")
        .doesNotContainPattern(JAVA);
    assertThat(Defects.describe(new IllegalStateException("the pool moved")))
        .isEqualTo("an unexpected state: the pool moved");
  }
}
