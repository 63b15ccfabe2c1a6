package dev.kvprov.inspect.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvprov.inspect.spans.BootSection;
import dev.kvprov.inspect.text.Json;
import dev.kvprov.inspect.text.Text;
import dev.kvprov.inspect.writers.SpanNode;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvp blame}: spans by duration, longest first, with their self time. */
@Command(
    name = "blame",
    mixinStandardHelpOptions = true,
    description = {
      "Spans by duration, longest first, with self time.",
      "",
      "Where a boot's time went, for every writer, like cloud-init analyze blame:",
      "each span's total, and its self time (the total less its children's). A span",
      "that never finished is listed too, marked, with its time until the pool's last",
      "record: where a hung run spent its time so far."
    },
    footer = {"", "", "Examples:", "  kvp blame", "  kvp blame --top 5 --json"})
final class BlameCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin PoolOptions input;

  @Option(
      names = "--top",
      paramLabel = "N",
      defaultValue = "20",
      description = "Show the N longest (default: ${DEFAULT-VALUE}).")
  int top;

  @CommandLine.Mixin BootChoice boots;

  @Option(names = "--json", description = "[{name, writer, duration_ms, self_ms, unfinished}]")
  boolean json;

  /**
   * One span's line.
   *
   * @param unfinished whether it never finished: its total is then the time until the pool's last
   *     record, so far
   */
  record Row(String name, String writer, Duration total, Duration self, boolean unfinished) {}

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
    for (BootSection section : sections) {
      List<Row> rows = new ArrayList<>();
      Instant last = section.lastTime();
      section.roots().forEach(root -> collect(root, last, rows));
      section.forest.notes.forEach(n -> spec.commandLine().getErr().println("kvp blame: " + n));
      rows.sort(Comparator.comparing(Row::total).reversed());
      List<Row> shown = rows.subList(0, Math.min(Math.max(top, 0), rows.size()));
      if (json) {
        for (Row r : shown) {
          ObjectNode node = array.addObject();
          if (headed) {
            node.put("boot", section.number);
          }
          row(r, node);
        }
      } else {
        if (headed) {
          out.println(section.header(all.size()));
        }
        print(shown, out);
      }
    }
    if (json) {
      out.println(Json.write(array));
    }
    return ExitCode.OK.code;
  }

  private static void row(Row r, ObjectNode node) {
    node.put("name", r.name())
        .put("writer", r.writer())
        .put("duration_ms", Text.millis(r.total()))
        .put("self_ms", Text.millis(r.self()))
        .put("unfinished", r.unfinished());
  }

  private static void print(List<Row> shown, PrintWriter out) {
    // as wide as the longest span (days, on a VM that was up that long), so the columns hold
    int width =
        Math.max(
            10, shown.stream().mapToInt(r -> Text.seconds(r.total(), 0).length()).max().orElse(0));
    out.println(Text.padLeft("total", width) + " " + Text.padLeft("self", width) + "  span");
    shown.forEach(
        r ->
            out.println(
                Text.seconds(r.total(), width)
                    + " "
                    + Text.seconds(r.self(), width)
                    + "  "
                    + Text.printable(r.name())
                    + "  ["
                    + r.writer()
                    + "]"
                    + (r.unfinished() ? "  NEVER FINISHED (so far)" : "")));
  }

  private static void collect(SpanNode node, Instant last, List<Row> rows) {
    Duration total = soFar(node, last);
    if (total != null) {
      Duration children =
          node.children.stream()
              .map(c -> soFar(c, last))
              .filter(java.util.Objects::nonNull)
              .reduce(Duration.ZERO, Duration::plus);
      Duration self = total.minus(children);
      rows.add(
          new Row(
              node.name,
              node.writer.name(),
              total,
              self.isNegative() ? Duration.ZERO : self,
              node.end == null));
    }
    node.children.forEach(c -> collect(c, last, rows));
  }

  /** A span's length; one that never finished, until the pool's last record. */
  private static Duration soFar(SpanNode node, Instant last) {
    if (node.end == null && node.start != null && last != null) {
      Duration d = Duration.between(node.start, last);
      return d.isNegative() ? Duration.ZERO : d;
    }
    return node.duration();
  }
}
