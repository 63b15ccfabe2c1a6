package dev.kvprov.agent.demo;

import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.otel.KvpRecordFormat;
import dev.kvprov.otel.KvprovRecord;
import dev.kvprov.otel.KvprovSpanTree;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The span tree of a pool's kvprov records, as kvprov's grammar rebuilds it ({@link
 * KvprovSpanTree}), one line per span: start offset, duration, status (a failure's error, a
 * warning, what a span found); spans that started and never finished are marked. {@code kvp tree}
 * shows every writer's; the demo prints its own.
 */
public final class SpanTree {
  private SpanTree() {}

  public static void print(List<KvpRecord> records, PrintStream out) {
    List<KvprovRecord> decoded =
        KvpRecordFormat.decode(records).records().stream()
            .map(KvpRecordFormat.DecodedRecord::record)
            .toList();
    List<KvprovSpanTree.Span> roots = KvprovSpanTree.roots(decoded, new ArrayList<>());
    Duration origin =
        roots.isEmpty() ? Duration.ZERO : roots.get(0).first().sinceBoot().orElse(Duration.ZERO);
    for (KvprovSpanTree.Span root : roots) {
      print(root, 0, origin, out);
    }
  }

  private static void print(KvprovSpanTree.Span node, int depth, Duration origin, PrintStream out) {
    Duration at = node.first().sinceBoot().orElse(origin).minus(origin);
    String outcome;
    if (node.end() == null) {
      outcome = "STARTED, NEVER FINISHED";
    } else {
      String status = node.end().status().orElse("?");
      Optional<String> warning = node.end().warning();
      outcome =
          (status.equals("error")
                  ? "FAILED: " + node.end().errorMessage().orElse("")
                  : warning
                      .map(w -> "warning: " + w)
                      .orElse(node.end().summary().map(f -> "ok: " + f).orElse("ok")))
              + "  "
              + node.end().field(KvpRecordFormat.DURATION).orElse("");
    }
    out.printf(
        "  +%7.3fs  %s%s  %s%n",
        at.toNanos() / 1e9, "  ".repeat(depth), node.first().name().orElse("?"), outcome);
    for (KvprovSpanTree.Span child : node.children()) {
      print(child, depth + 1, origin, out);
    }
  }
}
