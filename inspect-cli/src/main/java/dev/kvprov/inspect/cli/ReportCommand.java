package dev.kvprov.inspect.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvprov.inspect.render.Style;
import dev.kvprov.inspect.spans.BootSection;
import dev.kvprov.inspect.text.Json;
import dev.kvprov.inspect.text.Text;
import dev.kvprov.inspect.writers.SpanNode;
import dev.kvprov.otel.ProvisioningReport;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code kvp report}: the platform's PROVISIONING_REPORT, whoever wrote it. Its model is built in
 * code ({@link CommandModels}).
 */
final class ReportCommand implements Callable<Integer> {
  private CommandSpec spec;
  private final PoolOptions input = new PoolOptions();
  private boolean json;

  private ReportCommand() {}

  static CommandSpec model() {
    ReportCommand report = new ReportCommand();
    report.spec =
        CommandModels.command(
            report,
            new String[] {
              "The PROVISIONING_REPORT: result, reason, agent and every field.",
              "",
              "With no report, a run that never finished says so: when it started, the step",
              "still open, and for how long until the pool's last record."
            },
            "",
            "",
            "Examples:",
            "  kvp report",
            "  kvp report --root /mnt/rescued-disk --json");
    report.spec.addMixin("input", CommandModels.poolOptions(report.spec, report.input));
    report.spec.addOption(
        CommandModels.flag("--json", (Boolean j) -> report.json = j)
            .description("{\"fields\": {...}, \"raw\": \"...\"}")
            .build());
    return CommandModels.withStandardHelp(report.spec);
  }

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    List<BootSection> boots = PoolReading.boots(input, spec);
    if (boots == null) {
      return ExitCode.IO.code;
    }
    // the last boot's: an earlier boot's report says nothing of how the last one ended
    BootSection last = boots.isEmpty() ? null : boots.get(boots.size() - 1);
    String[] raw = {last == null ? null : last.report()};
    if (raw[0] == null) {
      noReport(last, out);
      return ExitCode.FOUND.code;
    }
    ProvisioningReport report;
    try {
      report = ProvisioningReport.parse(raw[0]);
    } catch (IllegalArgumentException e) {
      if (json) {
        ObjectNode node = Json.object();
        node.putNull("fields");
        node.put("raw", raw[0]).put("error", e.getMessage());
        out.println(Json.write(node));
      } else {
        out.println(
            "unreadable PROVISIONING_REPORT: "
                + Text.printable(e.getMessage())
                + "\n  "
                + Text.printable(raw[0]));
      }
      return ExitCode.FOUND.code;
    }
    if (json) {
      ObjectNode node = Json.object();
      ObjectNode fields = node.putObject("fields");
      report.fields().forEach(f -> fields.put(f.key(), f.value()));
      node.put("raw", raw[0]);
      out.println(Json.write(node));
    } else {
      int width = report.fields().stream().mapToInt(f -> f.key().length()).max().orElse(0);
      int columns = Style.columns(false);
      String margin = " ".repeat(width + 2);
      // a long reason or detail wraps under its value, never back to column 0
      report
          .fields()
          .forEach(
              f -> {
                String head = Text.padRight(Text.printable(f.key()), width) + "  ";
                List<String> parts = parts(f.key(), Text.printable(f.value()), columns);
                if (parts.size() == 1) {
                  Text.hang(head, parts.get(0), columns, 2).forEach(out::println);
                  return;
                }
                for (String part : parts) {
                  // a part wraps under the text after its name, so that it reads as one
                  int name = part.indexOf(' ') + 1;
                  Text.hang(head + part.substring(0, name), part.substring(name), columns, 2)
                      .forEach(out::println);
                  head = margin;
                }
              });
    }
    return (report.isSuccess() ? ExitCode.OK : ExitCode.FOUND).code;
  }

  /** Where kvprov's network snapshot starts a part: {@code ; route …}, {@code ; dns …}. */
  private static final Pattern NETWORK_PART =
      Pattern.compile("; (?=(?:addresses|route|dns|lease|imds|wireserver) )");

  /**
   * A value as the lines it starts: kvprov's {@code network} snapshot at a terminal one part to a
   * line (links, addresses, route…, each starting with its name), so that a part reads whole rather
   * than wrapped mid-way; any other value, or any value into a pipe, as it is.
   */
  private static List<String> parts(String key, String value, int columns) {
    if (!key.equals("network") || columns == Integer.MAX_VALUE) {
      return List.of(value);
    }
    return List.of(NETWORK_PART.split(value));
  }

  /**
   * No report: a run that never finished says so — when it started, the step still open, and for
   * how long (until the pool's last record); otherwise only that there is none.
   */
  private void noReport(BootSection boot, PrintWriter out) {
    List<SpanNode> open = boot == null ? List.of() : boot.unfinished();
    String pool = Text.printable(input.describe());
    if (open.isEmpty()) {
      out.println(json ? "{\"fields\":null,\"raw\":null}" : "no PROVISIONING_REPORT in " + pool);
      return;
    }
    SpanNode first = open.get(0);
    SpanNode step = open.get(open.size() - 1);
    Instant last = boot.lastTime();
    Duration openFor = Duration.between(step.start, last);
    if (json) {
      ObjectNode node = Json.object();
      node.putNull("fields");
      node.putNull("raw");
      ObjectNode hung = node.putObject("unfinished");
      hung.put("started", first.start.toString());
      hung.put("run", first.name);
      hung.put("writer", first.writer.name());
      hung.put("open_step", step.name);
      hung.put("open_since", step.start.toString());
      hung.put("open_for_s", Text.millis(openFor) / 1e3);
      hung.put("last_record", last.toString());
      out.println(Json.write(node));
      return;
    }
    out.println("provisioning never finished: no PROVISIONING_REPORT in " + pool);
    out.println(
        "  started      "
            + first.start
            + "  "
            + Text.printable(first.name)
            + " ["
            + first.writer.name()
            + "]");
    out.println("  still open   " + Text.printable(step.name) + ", since " + step.start);
    out.println(
        openFor.isZero()
            ? "  open for     unknown: nothing was written after it started"
            : "  open for     at least "
                + Text.secondsValue(openFor)
                + "s (until the pool's last record, "
                + last
                + ")");
  }
}
