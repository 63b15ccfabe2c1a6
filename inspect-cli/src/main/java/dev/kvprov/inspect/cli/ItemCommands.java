package dev.kvprov.inspect.cli;

import dev.kvprov.inspect.pool.PoolSource;
import dev.kvprov.inspect.text.Text;
import dev.kvprov.inspect.writers.Item;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.PoolLockTimeoutException;
import java.io.IOException;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code kvp get|set|delete}: one item, through the locked store (limits enforced). */
final class ItemCommands {
  private ItemCommands() {}

  private static PoolFile pool(PoolOptions input, CommandLine.Model.CommandSpec spec)
      throws IOException {
    // a repair of the pool (a torn record removed) said as one line of this command's own
    return input
        .writablePool()
        .repairs(r -> spec.commandLine().getErr().println("kvp " + spec.name() + ": " + r))
        .build();
  }

  /**
   * Why an argument is not stored, if it is not: the JVM turns bytes of the command line that are
   * not UTF-8 into U+FFFD, and a record holding that is not what was typed. (A U+FFFD typed on
   * purpose is refused too: the two cannot be told apart.)
   */
  static java.util.Optional<String> notUtf8(String what, String argument) {
    if (argument.indexOf('\uFFFD') < 0) {
      return java.util.Optional.empty();
    }
    String locale = System.getProperty("sun.jnu.encoding", "UTF-8");
    return java.util.Optional.of(
        what
            + " is not valid UTF-8 (bytes that are no character); nothing written"
            + (locale.equalsIgnoreCase("UTF-8")
                ? ""
                : " (the locale's " + locale + " is not UTF-8 either: try LANG=C.UTF-8)"));
  }

  @Command(
      name = "get",
      mixinStandardHelpOptions = true,
      description = "Print the value of the item with KEY (pieces put back together).",
      footer = {"", "", "Example:", "  kvp get PROVISIONING_REPORT"})
  static final class Get implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @CommandLine.Mixin PoolOptions input;

    @Parameters(paramLabel = "KEY", description = "The item's key, exactly (case matters here).")
    String key;

    @CommandLine.Option(
        names = "--json",
        description = "The item as kvp list --json shows it (value, records, problems, event).")
    boolean json;

    @Override
    public Integer call() {
      Item[] found = new Item[1];
      Consumer<Item> sink =
          item -> {
            if (item.key().equals(key)) {
              found[0] = item; // the last one counts, as for the host
            }
          };
      if (!PoolReading.items(input, spec, sink)) {
        return ExitCode.IO.code;
      }
      if (found[0] == null) {
        spec.commandLine().getErr().println("kvp get: no item with key " + Text.printable(key));
        return ExitCode.FOUND.code;
      }
      Item item = found[0];
      spec.commandLine().getOut().println(json ? ListCommand.asJson(item) : item.value());
      if (!item.problems().isEmpty()) {
        // A value put together from damaged or missing pieces is not the value that was written.
        item.problems()
            .forEach(p -> spec.commandLine().getErr().println("kvp get: " + Text.printable(p)));
        return ExitCode.FOUND.code;
      }
      return ExitCode.OK.code;
    }
  }

  @Command(
      name = "set",
      mixinStandardHelpOptions = true,
      description = {
        "Set KEY to VALUE through the locked store.",
        "",
        "The first record with the key is replaced in place (others with it are",
        "removed), or a record is appended. Keys and values beyond what reaches the",
        "host intact (254/1022 bytes) are refused, never cut."
      },
      footer = {"", "", "Example:", "  kvp set Support-Ticket 123456"})
  static final class Set implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @CommandLine.Mixin PoolOptions input;

    @Parameters(
        index = "0",
        paramLabel = "KEY",
        description = "The key: at most 254 bytes of UTF-8.")
    String key;

    @Parameters(
        index = "1",
        paramLabel = "VALUE",
        description = "The value: at most 1022 bytes of UTF-8.")
    String value;

    @Override
    public Integer call() {
      java.util.Optional<String> wrong = notUtf8("KEY", key).or(() -> notUtf8("VALUE", value));
      if (wrong.isPresent()) {
        spec.commandLine().getErr().println("kvp set: " + wrong.get());
        return ExitCode.USAGE.code;
      }
      try {
        boolean replaced = pool(input, spec).upsert(new KvpRecord(key, value));
        spec.commandLine().getOut().println((replaced ? "replaced " : "added ") + key);
        return ExitCode.OK.code;
      } catch (IllegalArgumentException e) {
        // the library's advice is for programs (ValueChunker); a person gets the limit alone
        spec.commandLine()
            .getErr()
            .println("kvp set: " + e.getMessage().replaceFirst("\\s*\\(split long values.*$", ""));
        return ExitCode.USAGE.code;
      } catch (PoolLockTimeoutException e) {
        spec.commandLine().getErr().println("kvp set: " + e.getMessage());
        return ExitCode.IO.code;
      } catch (IOException e) {
        spec.commandLine()
            .getErr()
            .println("kvp set: " + input.describe() + ": " + PoolSource.why(e));
        return ExitCode.IO.code;
      }
    }
  }

  @Command(
      name = "delete",
      mixinStandardHelpOptions = true,
      description = "Delete every record with KEY; later ones move up (hv_kvp_daemon).",
      footer = {"", "", "Example:", "  kvp delete Support-Ticket"})
  static final class Delete implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @CommandLine.Mixin PoolOptions input;

    @Parameters(paramLabel = "KEY", description = "The key, ignoring ASCII case as the host does.")
    String key;

    @Override
    public Integer call() {
      try {
        int deleted = pool(input, spec).delete(key);
        spec.commandLine().getOut().println("deleted " + deleted + " record(s)");
        return (deleted > 0 ? ExitCode.OK : ExitCode.FOUND).code;
      } catch (IllegalArgumentException e) {
        spec.commandLine().getErr().println("kvp delete: " + e.getMessage());
        return ExitCode.USAGE.code;
      } catch (IOException e) {
        spec.commandLine()
            .getErr()
            .println("kvp delete: " + input.describe() + ": " + PoolSource.why(e));
        return ExitCode.IO.code;
      }
    }
  }
}
