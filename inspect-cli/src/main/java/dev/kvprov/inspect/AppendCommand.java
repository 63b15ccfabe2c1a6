package dev.kvprov.inspect;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.PoolLockTimeoutException;
import dev.kvprov.kvp.RecordCodec;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvp append}: many records in one locked append. */
@Command(
    name = "append",
    mixinStandardHelpOptions = true,
    description = {
      "Append many KEY=VALUE lines as records, all under one lock, in one write.",
      "",
      "Each line is one record: the key is what comes before the first '=', the value",
      "what comes after. Every line is checked first (an empty key, a key or value the",
      "host would cut): if one is wrong, each is said with its line number and nothing",
      "is written. Blank lines and lines starting with # are passed over."
    },
    footer = {
      "",
      "",
      "Examples:",
      "  printf 'step=done\\nimage=2026.11\\n' | kvp append",
      "  kvp append --from records.txt --file pool.kvp"
    })
final class AppendCommand implements Callable<Integer> {
  /** More lines than this are not a hand-made batch: a pool holds a few thousand records. */
  static final int MAX_LINES = 100_000;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin PoolOptions input;

  @Option(
      names = "--from",
      paramLabel = "LINES",
      defaultValue = "-",
      description = "Where the KEY=VALUE lines come from; - (the default) is stdin.")
  String from;

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    PoolFile pool = input.writablePool().build();
    List<KvpRecord> records = new ArrayList<>();
    List<String> wrong = new ArrayList<>();
    try (BufferedReader lines = new BufferedReader(open())) {
      String line;
      int number = 0;
      while ((line = readLine(lines)) != null) {
        number++;
        if (number > MAX_LINES) {
          err.println("kvp append: more than " + MAX_LINES + " lines; nothing written");
          return 2;
        }
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        int eq = line.indexOf('=');
        if (eq < 0) {
          wrong.add("line " + number + ": no '=' between a key and a value");
          continue;
        }
        try {
          KvpRecord record = new KvpRecord(line.substring(0, eq), line.substring(eq + 1));
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
      err.println("kvp append: " + ("-".equals(from) ? "stdin" : from) + ": " + PoolReading.why(e));
      return 3;
    }
    if (!wrong.isEmpty()) {
      wrong.forEach(w -> err.println("kvp append: " + w));
      err.println("kvp append: nothing written");
      return 2;
    }
    try {
      pool.append(records);
    } catch (PoolLockTimeoutException e) {
      err.println("kvp append: " + pool.path() + ": " + e.getMessage());
      return 3;
    } catch (IOException e) {
      err.println("kvp append: " + pool.path() + ": " + PoolReading.why(e));
      return 3;
    }
    spec.commandLine()
        .getOut()
        .println("appended " + records.size() + " record(s) to " + pool.path());
    return 0;
  }

  private Reader open() throws IOException {
    if ("-".equals(from)) {
      return new InputStreamReader(new CappedInput(System.in, PoolSource.MAX_STDIN_BYTES), UTF_8);
    }
    Path file = Path.of(from);
    PoolSource.requireRegularFile(file);
    return Files.newBufferedReader(file, UTF_8);
  }

  /** The longest line a record can come from: a key and a value the host keeps, and then some. */
  static final int MAX_LINE_CHARS = 8 << 10;

  /** One line, at most {@link #MAX_LINE_CHARS} of it: past that, a line no record fits. */
  private static String readLine(BufferedReader in) throws IOException {
    StringBuilder line = new StringBuilder();
    int c;
    while ((c = in.read()) >= 0 && c != '\n') {
      if (line.length() < MAX_LINE_CHARS) {
        line.append((char) c);
      } else if (line.length() == MAX_LINE_CHARS) {
        line.append('…'); // longer than any record: said as too long below
      }
    }
    if (c < 0 && line.length() == 0) {
      return null;
    }
    int end = line.length();
    return end > 0 && line.charAt(end - 1) == '\r' ? line.substring(0, end - 1) : line.toString();
  }
}
