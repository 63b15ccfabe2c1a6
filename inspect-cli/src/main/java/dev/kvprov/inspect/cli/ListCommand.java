package dev.kvprov.inspect.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvprov.inspect.pool.PoolSource;
import dev.kvprov.inspect.pool.SourceVisitor;
import dev.kvprov.inspect.render.EventJson;
import dev.kvprov.inspect.render.ItemLine;
import dev.kvprov.inspect.render.Style;
import dev.kvprov.inspect.text.Json;
import dev.kvprov.inspect.text.Text;
import dev.kvprov.inspect.writers.Event;
import dev.kvprov.inspect.writers.Events;
import dev.kvprov.inspect.writers.Item;
import dev.kvprov.inspect.writers.Writers;
import dev.kvprov.kvp.KvpProblem;
import dev.kvprov.kvp.PoolEntry;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.function.Function;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code kvp list}: every logical item in pool order, decoded per writer. Its model is built in
 * code ({@link CommandModels}): a short {@code kvp list} is the run a support engineer repeats
 * most.
 */
final class ListCommand implements Callable<Integer> {
  /** Widths of the key and value columns in an 80-column terminal. */
  private static final int VALUE_WIDTH = 72;

  private static final int KEY_WIDTH = 61;

  static final List<String> LEVELS = List.of("DEBUG", "INFO", "WARN", "ERROR");

  private CommandSpec spec;
  private final PoolOptions input = new PoolOptions();
  private boolean json;
  private final ItemFilter filter = new ItemFilter();
  private String level;
  private Instant since;
  private boolean wide;
  private boolean raw;

  private ListCommand() {}

  static CommandSpec model() {
    ListCommand list = new ListCommand();
    list.spec =
        CommandModels.command(
            list,
            new String[] {
              "Every item of a pool in order, pieces joined, decoded per writer.",
              "",
              "One line an item: seconds since boot (when the writer tells), time of day (UTC),",
              "level, writer, name and what happened, a failure's error text included. On a",
              "terminal long lines wrap at words under the name; --wide, a pipe or a file get",
              "each item on one line. Pieces are joined first (kvprov's |i/n, cloud-init's",
              "msg_i, azure-init's); --raw shows the records as stored, key and value. --json",
              "prints one JSON object per item (JSON Lines)."
            },
            "",
            "",
            "Examples:",
            "  kvp list --level WARN",
            "  kvp list --wide | grep 'HTTP 503'",
            "  kvp list --since 2026-11-22T05:16:00Z --writer cloud-init --json",
            "  kvp list --raw --file pool1-1795322355.kvp");
    list.spec.addMixin("input", CommandModels.poolOptions(list.spec, list.input));
    list.spec.addOption(
        CommandModels.flag("--json", (Boolean j) -> list.json = j)
            .description("One JSON object per item.")
            .build());
    list.spec.addMixin("filter", CommandModels.itemFilter(list.spec, list.filter));
    list.spec.addOption(
        OptionSpec.builder("--level")
            .paramLabel("L")
            .type(String.class)
            .setter(CommandModels.setter((String l) -> list.level = l))
            .description(
                "Only items at level L or above: DEBUG, INFO, WARN, ERROR (cloud-init: from the"
                    + " result; items without a level are left out).")
            .build());
    list.spec.addOption(
        OptionSpec.builder("--since")
            .paramLabel("TIME")
            .type(Instant.class)
            .converters(new InstantConverter())
            .setter(CommandModels.setter((Instant t) -> list.since = t))
            .description(
                "Only items at or after TIME (RFC 3339 or epoch seconds); items without a time are"
                    + " left out.")
            .build());
    list.spec.addOption(
        CommandModels.flag("--wide", (Boolean w) -> list.wide = w)
            .description(
                "Every item on one line, never wrapped (what a pipe or a file gets anyway);"
                    + " for grep on a terminal.")
            .build());
    list.spec.addOption(
        CommandModels.flag("--raw", (Boolean r) -> list.raw = r)
            .description("The records as stored: one per slot, pieces not joined, nothing decoded.")
            .build());
    return CommandModels.withStandardHelp(list.spec);
  }

  @Override
  public Integer call() {
    if (level != null && !LEVELS.contains(level.toUpperCase(Locale.ROOT))) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--level is one of DEBUG, INFO, WARN, ERROR; not " + level);
    }
    if (raw && (level != null || since != null)) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--raw shows records as stored: --level and --since need decoding");
    }
    return raw ? listRaw() : listItems();
  }

  /**
   * An item as it is shown: its lines (or JSON line) as UTF-8, encoded where it was made (on any
   * core), the day they fall on, its problems.
   */
  private record Shown(byte[] text, String day, int problems) {}

  private int listItems() {
    ByteOut out = ByteOut.to(spec.commandLine().getOut());
    Style style = Style.forStdout();
    int minLevel = level == null ? -1 : LEVELS.indexOf(level.toUpperCase(Locale.ROOT));
    // Set between sources, when no item is being made ready (InPoolOrder drains first).
    String[] part = new String[1];
    int[] problems = new int[1];
    int[] items = new int[1];
    String[] shownDay = new String[1];
    int columns = Style.columns(wide);
    String newline = System.lineSeparator();
    // Decoding and formatting an item runs on every core; printing, in pool order, here.
    Function<Item, Shown> show =
        found -> {
          if (!filter.accepts(found)) {
            return null;
          }
          boolean kvprov = found.writer() == Writers.KVPROV;
          Optional<Event> event = Events.of(found);
          Item item =
              kvprov && event.isEmpty() && found.problems().isEmpty()
                  ? found.withProblem("not a readable kvprov record (see docs/kvp-format.md)")
                  : found;
          if (minLevel >= 0) {
            String itemLevel = event.map(Event::severity).orElse(null);
            if (itemLevel == null || LEVELS.indexOf(itemLevel) < minLevel) {
              return null;
            }
          }
          Instant at = ItemLine.instant(event);
          if (since != null && (at == null || at.isBefore(since))) {
            return null;
          }
          int itemProblems = item.problems().size();
          return json
              ? new Shown(ItemJson.line(item, event, part[0]).getBytes(UTF_8), null, itemProblems)
              : new Shown(
                  String.join(newline, ItemLine.lines(item, event, at, columns, style))
                      .getBytes(UTF_8),
                  ItemLine.day(at),
                  itemProblems);
        };
    Consumer<Shown> print =
        shown -> {
          problems[0] += shown.problems();
          items[0]++;
          if (shown.day() != null && !shown.day().equals(shownDay[0])) {
            out.text(style.dim("-- " + shown.day() + " (times UTC)")).newline();
            shownDay[0] = shown.day();
          }
          out.bytes(shown.text()).newline();
        };
    Consumer<PoolSource> onPart =
        p -> {
          part[0] = p.name();
          shownDay[0] = null;
          if (!json) {
            out.text(style.bold("== " + p.name())).newline();
          }
        };
    boolean read = PoolReading.items(input, spec, show, source -> print, onPart);
    out.flush();
    if (!read) {
      return ExitCode.IO.code;
    }
    if (items[0] == 0) {
      // an empty answer says so, on stderr: stdout stays what a script parses
      spec.commandLine()
          .getErr()
          .println(
              "kvp list: no item"
                  + (level == null ? "" : " at " + level.toUpperCase(Locale.ROOT) + " or above")
                  + (since == null ? "" : " since " + since)
                  + " in "
                  + Text.printable(input.describe()));
    }
    return (problems[0] == 0 ? ExitCode.OK : ExitCode.FOUND).code;
  }

  private int listRaw() {
    PrintWriter out = spec.commandLine().getOut();
    Style style = Style.forStdout();
    int[] problems = new int[1];
    String[] source = new String[1];
    boolean ok =
        PoolReading.sources(
            input,
            spec,
            part ->
                new SourceVisitor() {
                  final List<String> pending = new ArrayList<>();

                  @Override
                  public void problem(KvpProblem p) {
                    pending.add(p.toString());
                  }

                  @Override
                  public void entry(PoolEntry e) {
                    if (!filter.accepts(Writers.of(e.key()), e.key(), e.value())) {
                      pending.clear();
                      return;
                    }
                    problems[0] += pending.size();
                    if (json) {
                      ObjectNode node = Json.object();
                      node.put("index", e.index()).put("offset", e.offset());
                      node.put("key", e.key()).put("value", e.value()).put("intact", e.intact());
                      pending.forEach(node.putArray("problems")::add);
                      if (source[0] != null) {
                        node.put("source", source[0]);
                      }
                      out.println(Json.write(node));
                    } else {
                      Item shown =
                          new Item(
                              e.index(),
                              List.of(e.index()),
                              e.key(),
                              Writers.of(e.key()),
                              e.value(),
                              pending);
                      out.println(asLine(shown, style));
                    }
                    pending.clear();
                  }

                  /** Problems after the last record (a torn tail): a line of their own. */
                  @Override
                  public void finish() {
                    problems[0] += pending.size();
                    for (String p : pending) {
                      out.println(
                          json
                              ? Json.write(Json.object().put("problem", p))
                              : "       ! " + Text.printable(p));
                    }
                  }
                },
            part -> {
              source[0] = part.name();
              if (!json) {
                out.println(style.bold("== " + Text.printable(part.name())));
              }
            });
    out.flush();
    return (!ok ? ExitCode.IO : problems[0] == 0 ? ExitCode.OK : ExitCode.FOUND).code;
  }

  /** {@code --raw}: two lines a record, fitting 80 columns: index, writer, key; then the value. */
  private static String asLine(Item item, Style style) {
    String value = Text.printable(item.value());
    String shown = Text.cut(value, VALUE_WIDTH);
    String head =
        Text.padLeft(Integer.toString(item.index()), 5)
            + "  "
            + Text.padRight(item.writer().name(), 10)
            + "  "
            + Text.cut(Text.printable(item.key()), KEY_WIDTH);
    if (item.key().contains("|ERROR|")
        || item.writer() == Writers.REPORT && value.startsWith("result=error")) {
      head = style.error(head);
    } else if (item.key().contains("|WARN|")) {
      head = style.warn(head);
    }
    return head
        + "\n       "
        + style.dim(shown)
        + (item.problems().isEmpty()
            ? ""
            : "\n       " + style.error("! " + Text.printable(String.join("; ", item.problems()))));
  }

  /** For other commands that print items the way {@code list --json} does. */
  static String asJson(Item item) {
    return ItemJson.line(item, Events.of(item), null);
  }

  /**
   * An item as {@code list --json} prints it. A class of its own, handing back only text: picocli
   * reflects on the command class at every start, which links it, and the verifier then loads every
   * type its code passes between methods (Jackson's node classes) even for plain text output.
   */
  static final class ItemJson {
    private ItemJson() {}

    static String line(Item item, Optional<Event> event, String source) {
      return Json.write(of(item, event, source));
    }

    private static ObjectNode of(Item item, Optional<Event> event, String source) {
      ObjectNode node = Json.object();
      node.put("index", item.index());
      item.records().forEach(node.putArray("records")::add);
      node.put("key", item.key());
      node.put("writer", item.writer().name());
      node.put("value", item.value());
      item.problems().forEach(node.putArray("problems")::add);
      event.ifPresent(e -> node.set("event", EventJson.of(e)));
      if (source != null) {
        node.put("source", source);
      }
      return node;
    }
  }
}
