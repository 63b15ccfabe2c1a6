package dev.kvprov.agent;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code kvprov demo} writes on stderr, in a process of its own: under systemd (the journal,
 * with syslog priorities) and with a {@code logback.xml} of the root's.
 */
class DemoStderrTest {
  @TempDir Path dir;

  /**
   * The demo's stderr lines. With {@code journal}, stderr is a file whose device and inode are
   * given in {@code JOURNAL_STREAM}, as systemd gives those of the journal's stream: the agent's
   * own check (that fd 2 is that stream) then finds the journal.
   */
  private List<String> demo(String scenario, boolean journal) throws Exception {
    Path base = dir.resolve(scenario);
    Path err = Files.createDirectories(base).resolve("stderr");
    Files.createFile(err);
    ProcessBuilder builder =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName(),
                "demo",
                "--dir",
                base.toString(),
                "--scenario",
                scenario)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(err.toFile());
    builder.environment().remove("JOURNAL_STREAM");
    if (journal) {
      builder
          .environment()
          .put(
              "JOURNAL_STREAM",
              Files.getAttribute(err, "unix:dev") + ":" + Files.getAttribute(err, "unix:ino"));
    }
    Process process = builder.start();
    process.waitFor();
    return Files.readAllLines(err, UTF_8);
  }

  @Test
  void flakyImds_inTheJournal_hasNoErrorLine_theRetriesAreWarnings() throws Exception {
    List<String> lines = demo("flaky-imds", true);

    assertThat(lines).isNotEmpty().allMatch(l -> l.matches("<[3467]>\\[.*"));
    assertThat(lines).noneMatch(l -> l.matches("<[0-3]>.*"));
    assertThat(lines)
        .filteredOn(l -> l.startsWith("<4>"))
        .hasSize(3)
        .allMatch(
            l ->
                l.matches(
                    "<4>\\[ *\\d+\\.\\d{3}s\\] WARN  provision/imds\\.fetch/imds\\.attempt: warning:"
                        + " IMDS answered HTTP (500|503|429); trying again in .*"));
    assertThat(lines).anyMatch(l -> l.matches("<6>.*INFO  provision: ok .*"));
  }

  @Test
  void imdsDown_inTheJournal_hasItsErrorLines() throws Exception {
    List<String> lines = demo("imds-down-no-media", true);

    assertThat(lines)
        .filteredOn(l -> l.startsWith("<3>"))
        .anyMatch(l -> l.contains("ERROR provision/imds.fetch/imds.attempt: failed: "))
        .anyMatch(l -> l.contains("ERROR provision/imds.fetch: failed: no usable answer"))
        .anyMatch(l -> l.contains("ERROR PROVISIONING_REPORT: result=error"));
    assertThat(lines)
        .filteredOn(l -> l.contains("imds.attempt: failed"))
        .as("only the last attempt is an error")
        .hasSize(1);
  }

  @Test
  void onAConsole_theLinesHaveNoPriority() throws Exception {
    List<String> lines = demo("ok", false);

    assertThat(lines)
        .isNotEmpty()
        .allMatch(l -> l.matches("\\[ *\\d+\\.\\d{3}s\\] (INFO |WARN ) .*"));
  }

  @Test
  void aLogbackXmlUnderTheRoot_decidesTheStderrFormat() throws Exception {
    Path xml = Files.createDirectories(dir.resolve("ok/root/etc/kvprov")).resolve("logback.xml");
    Files.writeString(
        xml,
        """
        <configuration>
          <appender name="stderr" class="ch.qos.logback.core.ConsoleAppender">
            <target>System.err</target>
            <encoder><pattern>MARK %-5level %logger %msg%n</pattern></encoder>
          </appender>
          <logger name="kvprov" level="INFO" additivity="false">
            <appender-ref ref="stderr"/>
          </logger>
        </configuration>
        """);

    List<String> lines = demo("ok", false);

    assertThat(lines).isNotEmpty().allMatch(l -> l.startsWith("MARK "));
    assertThat(lines)
        .anyMatch(l -> l.startsWith("MARK INFO  kvprov provision/imds.fetch: started ("));
    assertThat(lines)
        .anyMatch(l -> l.matches("MARK INFO  kvprov provision: ok \\(\\d+\\.\\d{3}s\\)"));
  }
}
