package dev.kvprov.inspect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.List;
import picocli.CommandLine;

/** One in-process run of {@code kvp}: its exit status, stdout and stderr. */
record CliRun(int exit, String out, String err) {
  private static final ObjectMapper JSON = new ObjectMapper();

  static CliRun of(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = KvpCommand.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int exit = cli.execute(args);
    return new CliRun(exit, out.toString(), err.toString());
  }

  /** stdout as JSON Lines. */
  List<JsonNode> jsonLines() {
    return out.lines().map(CliRun::parse).toList();
  }

  JsonNode json() {
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
