package dev.kvprov.inspect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvprov.inspect.cli.KvpCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.List;
import picocli.CommandLine;

/** One in-process run of {@code kvp}: its exit status, stdout and stderr. */
public record CliRun(int exit, String out, String err) {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Runs {@code kvp ARGS} with the command line built as {@code bin/kvp} builds it (only the
   * subcommand named). A command that throws is a defect, not an answer: the run fails the test
   * with the exception rather than passing as exit status 1.
   */
  public static CliRun of(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = KvpCommand.commandLine(args);
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    Exception[] thrown = new Exception[1];
    cli.setExecutionExceptionHandler(
        (e, line, parsed) -> {
          thrown[0] = e;
          return 99;
        });
    int exit = cli.execute(args);
    if (thrown[0] != null) {
      throw new AssertionError("kvp " + String.join(" ", args) + " threw", thrown[0]);
    }
    return new CliRun(exit, out.toString(), err.toString());
  }

  /** stdout as JSON Lines. */
  public List<JsonNode> jsonLines() {
    return out.lines().map(CliRun::parse).toList();
  }

  public JsonNode json() {
    return parse(out);
  }

  private static JsonNode parse(String text) {
    try {
      return JSON.readTree(text);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new UncheckedIOException("not JSON: " + text, e);
    }
  }
}
