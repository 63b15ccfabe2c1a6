package dev.kvprov.inspect.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvprov.inspect.render.Style;
import dev.kvprov.inspect.spans.BootSection;
import dev.kvprov.inspect.text.Json;
import dev.kvprov.inspect.text.Text;
import dev.kvprov.inspect.writers.SpanNode;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code kvp tree}: the span tree, every writer's. Its model is built in code ({@link
 * CommandModels}).
 */
final class TreeCommand implements Callable<Integer> {
  private static final int NAME_WIDTH = 48;

  private CommandSpec spec;
  private final PoolOptions input = new PoolOptions();
  private boolean json;
  private final BootChoice boots = new BootChoice();

  private TreeCommand() {}

  static CommandSpec model() {
    TreeCommand tree = new TreeCommand();
    tree.spec =
        CommandModels.command(
            tree,
            new String[] {
              "The span tree, every writer's: offset, duration, status per span.",
              "",
              "One line per span; failed spans show FAILED and their message, spans that",
              "started and never finished (a hang, a crash, a reboot) are marked. kvprov",
              "spans nest by parent id, cloud-init's by their /-joined names, azure-init's",
              "(which record no parent) by time: a span's parent is the innermost span",
              "that contains it. Offsets count from the first span. On a terminal, long lines",
              "wrap at words under the name; a pipe or a file gets each span on one line."
            },
            "",
            "",
            "Examples:",
            "  kvp tree",
            "  kvp tree --root /mnt/rescued-disk --json");
    tree.spec.addMixin("input", CommandModels.poolOptions(tree.spec, tree.input));
    tree.spec.addOption(
        CommandModels.flag("--json", (Boolean j) -> tree.json = j)
            .description("Nested spans: name, writer, start, end, duration_ms, status, children.")
            .build());
    tree.spec.addMixin("boots", CommandModels.bootChoice(tree.spec, tree.boots));
    return CommandModels.withStandardHelp(tree.spec);
  }

  @Override
  public Integer call() {
    List<BootSection> all = PoolReading.boots(input, spec);
    if (all == null) {
      return ExitCode.IO.code;
    }
    List<BootSection> sections = boots.of(all);
    boolean headed = sections.size() > 1;
    PrintWriter out = spec.commandLine().getOut();
    ArrayNode array = Json.array();
    Style style = Style.forStdout();
    int columns = Style.columns(false);
    for (BootSection section : sections) {
      List<SpanNode> roots = section.roots();
      section.forest.notes.forEach(n -> spec.commandLine().getErr().println("kvp tree: " + n));
      if (json) {
        for (SpanNode root : roots) {
          ObjectNode node = array.addObject();
          if (headed) {
            node.put("boot", section.number).put("source", section.source.name());
          }
          toJson(root, node);
        }
        continue;
      }
      if (headed) {
        out.println(style.bold(section.header(all.size())));
      }
      Instant origin =
          roots.stream()
              .map(n -> n.start)
              .filter(java.util.Objects::nonNull)
              .findFirst()
              .orElse(null);
      int[] widths = widths(roots, origin);
      roots.forEach(r -> print(r, 0, origin, widths, columns, out, style));
    }
    if (json) {
      out.println(Json.write(array));
    }
    return ExitCode.OK.code;
  }

  private static void toJson(SpanNode node, ObjectNode out) {
    out.put("name", node.name).put("writer", node.writer.name());
    out.put("start", node.start == null ? null : node.start.toString());
    out.put("end", node.end == null ? null : node.end.toString());
    Duration d = node.duration();
    if (d == null) {
      out.putNull("duration_ms");
    } else {
      out.put("duration_ms", Text.millis(d));
    }
    out.put("status", node.status);
    if (!node.message.isEmpty()) {
      out.put("message", node.message); // a failure's reason: what the reader came for
    }
    if (!node.summary.isEmpty()) {
      out.put("summary", node.summary);
    }
    ArrayNode children = out.putArray("children");
    node.children.forEach(c -> toJson(c, children.addObject()));
  }

  /**
   * The widths of the offset and duration columns: as wide as this tree's widest (a pool of a VM up
   * for days), at least as an 80-column line has them, so that every line's columns align.
   */
  private static int[] widths(List<SpanNode> roots, Instant origin) {
    int at = 9;
    int took = 9;
    java.util.Deque<SpanNode> todo = new java.util.ArrayDeque<>(roots);
    while (!todo.isEmpty()) {
      SpanNode node = todo.pop();
      if (node.start != null && origin != null) {
        at = Math.max(at, Text.signedSeconds(Duration.between(origin, node.start), 0).length());
      }
      if (node.duration() != null) {
        took = Math.max(took, Text.seconds(node.duration(), 0).length());
      }
      todo.addAll(node.children);
    }
    return new int[] {at, took};
  }

  private static void print(
      SpanNode node,
      int depth,
      Instant origin,
      int[] widths,
      int columns,
      PrintWriter out,
      Style style) {
    String at =
        node.start == null || origin == null
            ? Text.padLeft("?", widths[0])
            : Text.signedSeconds(Duration.between(origin, node.start), widths[0]);
    Duration d = node.duration();
    String took = d == null ? " ".repeat(widths[1]) : Text.seconds(d, widths[1]);
    String head = at + " " + took + "  " + "  ".repeat(depth);
    String message = Text.printable(node.message);
    String status =
        switch (node.status) {
          // a span that did not fail but warned (kvprov: an attempt tried again)
          case "ok" ->
              !message.isEmpty()
                  ? "warning: " + message
                  : node.summary.isEmpty() ? "ok" : "ok: " + Text.printable(node.summary);
          case "error" -> "FAILED" + (message.isEmpty() ? "" : ": " + message);
          default -> "STARTED, NEVER FINISHED";
        };
    String text =
        Text.cut(Text.printable(node.name), NAME_WIDTH)
            + "  ["
            + node.writer.name()
            + "] "
            + status;
    // A failure's or a warning's words are what the reader came for: wrapped under the name,
    // never cut; too deep for that, under the columns.
    int column = widths[0] + widths[1] + 3;
    for (String line : Text.hang(head, text, columns, column)) {
      out.println(
          switch (node.status) {
            case "ok" -> message.isEmpty() ? line : style.warn(line);
            case "error" -> style.error(line);
            default -> style.warn(line);
          });
    }
    node.children.forEach(c -> print(c, depth + 1, origin, widths, columns, out, style));
  }
}
