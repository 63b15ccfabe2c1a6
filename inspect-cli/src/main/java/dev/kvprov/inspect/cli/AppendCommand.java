package dev.kvprov.inspect.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvprov.inspect.pool.CappedInput;
import dev.kvprov.inspect.pool.PoolSource;
import dev.kvprov.inspect.render.Style;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.PoolLockTimeoutException;
import dev.kvprov.kvp.RecordCodec;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code kvp append}: many records in one locked append. Its model is built in code ({@link
 * CommandModels}).
 */
final class AppendCommand implements Callable<Integer> {
  /** More lines than this are not a hand-made batch: a pool holds a few thousand records. */
  static final int MAX_LINES = 100_000;

  private CommandSpec spec;
  private final PoolOptions input = new PoolOptions();
  private String from;

  private AppendCommand() {}

  static CommandSpec model() {
    AppendCommand append = new AppendCommand();
    append.spec =
        CommandModels.command(
            append,
            new String[] {
              "Append many KEY=VALUE lines as records, under one lock.",
              "",
              "Each line is one record: the key is what comes before the first '=', the value",
              "what comes after. Every line is checked first (an empty key, a key or value the",
              "host would cut): if one is wrong, each is said with its line number and nothing",
              "is written. Blank lines and lines starting with # are passed over. At a",
              "terminal, a prompt says how to end the input (Ctrl-D)."
            },
            "",
            "",
            "Examples:",
            "  printf 'step=done\\nimage=2026.11\\n' | kvp append",
            "  kvp append --from records.txt --file pool.kvp");
    append.spec.addMixin("input", CommandModels.poolOptions(append.spec, append.input));
    append.spec.addOption(
        OptionSpec.builder("--from")
            .paramLabel("LINES")
            .type(String.class)
            .defaultValue("-")
            .setter(CommandModels.setter((String f) -> append.from = f))
            .description("Where the KEY=VALUE lines come from; - (the default) is stdin.")
            .build());
    return CommandModels.withStandardHelp(append.spec);
  }

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    PoolFile pool;
    try {
      // a repair of the pool (a torn record removed) said as one line of kvp's, not the JDK's log
      pool = input.writablePool().repairs(r -> err.println("kvp append: " + r)).build();
    } catch (IOException e) {
      err.println("kvp append: " + input.describe() + ": " + PoolSource.why(e));
      return ExitCode.IO.code;
    }
    if ("-".equals(from) && Style.isTerminal(0)) {
      // a person typing, not a pipe: say how the input ends, or the wait looks like a hang
      err.println(
          "kvp append: type KEY=VALUE lines, then Ctrl-D on a line of its own"
              + " (Ctrl-C: nothing written)");
      err.flush();
    }
    List<KvpRecord> records = new ArrayList<>();
    List<String> wrong = new ArrayList<>();
    try (InputStream lines = new BufferedInputStream(open())) {
      Line line;
      int number = 0;
      while ((line = readLine(lines)).text().isPresent()) {
        number++;
        if (number > MAX_LINES) {
          err.println("kvp append: more than " + MAX_LINES + " lines; nothing written");
          return ExitCode.USAGE.code;
        }
        if (!line.utf8()) {
          wrong.add("line " + number + ": not valid UTF-8 (bytes that are no character)");
          continue;
        }
        String text = line.text().get();
        if (text.isBlank() || text.startsWith("#")) {
          continue;
        }
        int eq = text.indexOf('=');
        if (eq < 0) {
          wrong.add("line " + number + ": no '=' between a key and a value");
          continue;
        }
        try {
          KvpRecord record = new KvpRecord(text.substring(0, eq), text.substring(eq + 1));
          RecordCodec.encode(record, pool.limits()); // says what the host would cut
          records.add(record);
        } catch (IllegalArgumentException e) {
          wrong.add(
              "line "
                  + number
                  + ": "
                  + e.getMessage().replaceFirst("\\s*\\(split long values.*$", ""));
        }
      }
    } catch (IOException e) {
      err.println("kvp append: " + ("-".equals(from) ? "stdin" : from) + ": " + PoolSource.why(e));
      return ExitCode.IO.code;
    }
    if (!wrong.isEmpty()) {
      wrong.forEach(w -> err.println("kvp append: " + w));
      err.println("kvp append: nothing written");
      return ExitCode.USAGE.code;
    }
    try {
      pool.append(records);
    } catch (PoolLockTimeoutException e) {
      err.println("kvp append: " + pool.path() + ": " + e.getMessage());
      return ExitCode.IO.code;
    } catch (IOException e) {
      err.println("kvp append: " + pool.path() + ": " + PoolSource.why(e));
      return ExitCode.IO.code;
    }
    spec.commandLine()
        .getOut()
        .println("appended " + records.size() + " record(s) to " + pool.path());
    return ExitCode.OK.code;
  }

  private InputStream open() throws IOException {
    if ("-".equals(from)) {
      return new CappedInput(System.in, PoolSource.MAX_STDIN_BYTES);
    }
    Path file = Path.of(from);
    PoolSource.requireRegularFile(file);
    return Files.newInputStream(file);
  }

  /** The longest line a record can come from: a key and a value the host keeps, and then some. */
  static final int MAX_LINE_BYTES = 8 << 10;

  /**
   * One line: its text (none at the end of the input), and whether its bytes were UTF-8. A line
   * that was not is refused, never stored with U+FFFD where its bytes were.
   */
  private record Line(java.util.Optional<String> text, boolean utf8) {}

  /** One line, at most {@link #MAX_LINE_BYTES} of it: past that, a line no record fits. */
  private static Line readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    boolean longer = false;
    int c;
    while ((c = in.read()) >= 0 && c != '\n') {
      if (line.size() < MAX_LINE_BYTES) {
        line.write(c);
      } else {
        longer = true;
      }
    }
    if (c < 0 && line.size() == 0) {
      return new Line(java.util.Optional.empty(), true);
    }
    byte[] bytes = line.toByteArray();
    int end = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
    if (longer) {
      // longer than any record: said as too long below (a character cut here does not matter)
      return new Line(java.util.Optional.of(new String(bytes, 0, end, UTF_8) + "…"), true);
    }
    try {
      return new Line(
          java.util.Optional.of(
              UTF_8
                  .newDecoder()
                  .onMalformedInput(CodingErrorAction.REPORT)
                  .onUnmappableCharacter(CodingErrorAction.REPORT)
                  .decode(ByteBuffer.wrap(bytes, 0, end))
                  .toString()),
          true);
    } catch (CharacterCodingException e) {
      return new Line(java.util.Optional.of(""), false);
    }
  }
}
