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
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.ISetter;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * {@code kvp get|set|delete}: one item, through the locked store (limits enforced). Their models
 * are built in code ({@link CommandModels}): a short run is most of what these commands are.
 */
final class ItemCommands {
  private ItemCommands() {}

  /** The KEY every item command takes first. */
  private static PositionalParamSpec.Builder key(ISetter setter) {
    return PositionalParamSpec.builder()
        .paramLabel("KEY")
        .type(String.class)
        .required(true) // as the annotation's arity 1 makes it
        .setter(setter);
  }

  private static PoolFile pool(PoolOptions input, CommandSpec spec) throws IOException {
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

  /** A model built in code: see {@link CommandModels}. */
  static final class Get implements Callable<Integer> {
    private CommandSpec spec;
    private final PoolOptions input = new PoolOptions();
    private String key;
    private boolean json;

    private Get() {}

    static CommandSpec model() {
      Get get = new Get();
      get.spec =
          CommandModels.command(
              get,
              new String[] {"Print the value of the item with KEY (pieces put back together)."},
              "",
              "",
              "Example:",
              "  kvp get PROVISIONING_REPORT");
      get.spec.addMixin("input", CommandModels.poolOptions(get.spec, get.input));
      get.spec.addPositional(
          key(CommandModels.setter((String k) -> get.key = k))
              .index("0")
              .description("The item's key, exactly (case matters here).")
              .build());
      get.spec.addOption(
          OptionSpec.builder("--json")
              .type(boolean.class)
              .setter(CommandModels.setter((Boolean j) -> get.json = j))
              .description(
                  "The item as kvp list --json shows it (value, records, problems, event).")
              .build());
      return CommandModels.withStandardHelp(get.spec);
    }

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

  /** A model built in code: see {@link CommandModels}. */
  static final class Set implements Callable<Integer> {
    private CommandSpec spec;
    private final PoolOptions input = new PoolOptions();
    private String key;
    private String value;

    private Set() {}

    static CommandSpec model() {
      Set set = new Set();
      set.spec =
          CommandModels.command(
              set,
              new String[] {
                "Set KEY to VALUE through the locked store.",
                "",
                "The first record with the key is replaced in place (others with it are",
                "removed), or a record is appended. Keys and values beyond what reaches the",
                "host intact (254/1022 bytes) are refused, never cut."
              },
              "",
              "",
              "Example:",
              "  kvp set Support-Ticket 123456");
      set.spec.addMixin("input", CommandModels.poolOptions(set.spec, set.input));
      set.spec.addPositional(
          key(CommandModels.setter((String k) -> set.key = k))
              .index("0")
              .description("The key: at most 254 bytes of UTF-8.")
              .build());
      set.spec.addPositional(
          PositionalParamSpec.builder()
              .index("1")
              .paramLabel("VALUE")
              .type(String.class)
              .required(true)
              .setter(CommandModels.setter((String v) -> set.value = v))
              .description("The value: at most 1022 bytes of UTF-8.")
              .build());
      return CommandModels.withStandardHelp(set.spec);
    }

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

  /** A model built in code: see {@link CommandModels}. */
  static final class Delete implements Callable<Integer> {
    private CommandSpec spec;
    private final PoolOptions input = new PoolOptions();
    private String key;

    private Delete() {}

    static CommandSpec model() {
      Delete delete = new Delete();
      delete.spec =
          CommandModels.command(
              delete,
              new String[] {"Delete every record with KEY; later ones move up (hv_kvp_daemon)."},
              "",
              "",
              "Example:",
              "  kvp delete Support-Ticket");
      delete.spec.addMixin("input", CommandModels.poolOptions(delete.spec, delete.input));
      delete.spec.addPositional(
          key(CommandModels.setter((String k) -> delete.key = k))
              .index("0")
              .description("The key, ignoring ASCII case as the host does.")
              .build());
      return CommandModels.withStandardHelp(delete.spec);
    }

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
