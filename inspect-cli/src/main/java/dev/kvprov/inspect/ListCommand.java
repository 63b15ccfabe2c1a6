package dev.kvprov.inspect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvp list}: every logical item in pool order, decoded per writer. */
@Command(
    name = "list",
    mixinStandardHelpOptions = true,
    description = {
      "Every item of a pool in order, chunks put back together, decoded per writer.",
      "",
      "kvprov pieces (|i/n) and cloud-init chunks (msg_i) are reassembled; --raw shows the",
      "records as stored. --json prints one JSON object per item (JSON Lines)."
    },
    footer = {
      "",
      "Exit status: 0 ok; 1 the pool has problems; 2 usage error; 3 I/O error.",
      "",
      "Examples:",
      "  kvp list",
      "  kvp list --file pool1-1795322355.kvp --writer cloud-init --json"
    })
final class ListCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin PoolInput input;

  @Option(names = "--json", description = "One JSON object per item.")
  boolean json;

  @Option(
      names = "--writer",
      paramLabel = "W",
      description = "Only kvprov, azure-init, cloud-init, report or other.")
  String writer;

  @Option(
      names = "--grep",
      paramLabel = "TEXT",
      description = "Only items whose key or value contains TEXT.")
  String grep;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    ObjectMapper mapper = new ObjectMapper();
    int[] problems = new int[1];
    Consumer<Item> sink =
        item -> {
          problems[0] += item.problems().size();
          if ((writer != null && !item.writer().equals(writer))
              || (grep != null && !item.key().contains(grep) && !item.value().contains(grep))) {
            return;
          }
          out.println(json ? asJson(item, mapper) : asLine(item));
        };
    if (!input.forEachItem(sink, spec)) {
      return 3;
    }
    out.flush();
    return problems[0] == 0 ? 0 : 1;
  }

  static String asLine(Item item) {
    String value = item.value().replace("\n", "\\n");
    String shown = value.length() > 120 ? value.substring(0, 120) + "…" : value;
    return String.format(
        "%5d  %-10s  %s%n       %s%s",
        item.index(),
        item.writer(),
        item.key(),
        shown,
        item.problems().isEmpty() ? "" : "\n       ! " + String.join("; ", item.problems()));
  }

  static String asJson(Item item, ObjectMapper mapper) {
    ObjectNode node = mapper.createObjectNode();
    node.put("index", item.index());
    item.records().forEach(node.putArray("records")::add);
    node.put("key", item.key());
    node.put("writer", item.writer());
    node.put("value", item.value());
    item.problems().forEach(node.putArray("problems")::add);
    JsonNode event = Items.event(item, mapper);
    if (event != null) {
      node.set("event", event);
    }
    return node.toString();
  }
}
