package dev.kvprov.inspect;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvprov.otel.ProvisioningReport;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvp report}: the platform's PROVISIONING_REPORT, whoever wrote it. */
@Command(
    name = "report",
    mixinStandardHelpOptions = true,
    description = {
      "The PROVISIONING_REPORT: result, reason, agent, VM id, time and every other field."
    },
    footer = {
      "",
      "Exit status: 0 success; 1 a failure report, or no report; 2 usage error; 3 I/O error.",
      "",
      "Examples:",
      "  kvp report",
      "  kvp report --root /mnt/rescued-disk --json"
    })
final class ReportCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin PoolOptions input;

  @Option(names = "--json", description = "{\"fields\": {...}, \"raw\": \"...\"}")
  boolean json;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    String[] raw = new String[1];
    Consumer<Item> sink =
        item -> {
          if (item.writer().equals("report")) {
            raw[0] = item.value(); // the last one counts, should a writer have left two
          }
        };
    if (!PoolReading.items(input, spec, sink)) {
      return 3;
    }
    if (raw[0] == null) {
      out.println(
          json
              ? "{\"fields\":null,\"raw\":null}"
              : "no PROVISIONING_REPORT in " + Text.printable(input.describe()));
      return 1;
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
      return 1;
    }
    if (json) {
      ObjectNode node = Json.object();
      ObjectNode fields = node.putObject("fields");
      report.fields().forEach(f -> fields.put(f.key(), f.value()));
      node.put("raw", raw[0]);
      out.println(Json.write(node));
    } else {
      int width = report.fields().stream().mapToInt(f -> f.key().length()).max().orElse(0);
      report
          .fields()
          .forEach(
              f ->
                  out.println(
                      Text.padRight(Text.printable(f.key()), width)
                          + "  "
                          + Text.printable(f.value())));
    }
    return report.isSuccess() ? 0 : 1;
  }
}
