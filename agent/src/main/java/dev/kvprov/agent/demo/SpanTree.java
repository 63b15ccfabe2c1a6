package dev.kvprov.agent.demo;

import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.otel.KvpRecordFormat;
import dev.kvprov.otel.KvprovRecord;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The span tree rebuilt from a pool's kvprov records alone, one line per span: start offset,
 * duration, status; spans that started and never finished are marked. (The {@code kvp} inspector
 * will do this for every writer; this is the plain version the demo needs.)
 */
public final class SpanTree {
  private SpanTree() {}

  private record Node(KvprovRecord start, KvprovRecord end, List<Node> children) {}

  public static void print(List<KvpRecord> records, PrintStream out) {
    Map<String, KvprovRecord> starts = new LinkedHashMap<>();
    Map<String, KvprovRecord> ends = new LinkedHashMap<>();
    for (KvpRecordFormat.DecodedRecord decoded : KvpRecordFormat.decode(records).records()) {
      KvprovRecord r = decoded.record();
      if (r.kind() == KvprovRecord.Kind.START) {
        starts.put(r.recordId(), r);
      } else if (r.kind() == KvprovRecord.Kind.END) {
        ends.put(r.recordId(), r);
      }
    }
    Map<String, Node> nodes = new LinkedHashMap<>();
    for (String id : starts.keySet()) {
      nodes.put(id, new Node(starts.get(id), ends.get(id), new ArrayList<>()));
    }
    for (String id : ends.keySet()) {
      nodes.putIfAbsent(id, new Node(ends.get(id), ends.get(id), new ArrayList<>()));
    }
    List<Node> roots = new ArrayList<>();
    for (Node node : nodes.values()) {
      Node parent = node.start().parentSpanId().map(nodes::get).orElse(null);
      (parent == null ? roots : parent.children()).add(node);
    }
    Duration origin =
        roots.isEmpty() ? Duration.ZERO : roots.get(0).start().sinceBoot().orElse(Duration.ZERO);
    for (Node root : roots) {
      print(root, 0, origin, out);
    }
  }

  private static void print(Node node, int depth, Duration origin, PrintStream out) {
    Duration at = node.start().sinceBoot().orElse(origin).minus(origin);
    String outcome;
    if (node.end() == null) {
      outcome = "STARTED, NEVER FINISHED";
    } else {
      String status = node.end().status().orElse("?");
      outcome =
          (status.equals("error") ? "FAILED: " + node.end().errorMessage().orElse("") : "ok")
              + "  "
              + node.end().field("Duration").orElse("");
    }
    out.printf(
        "  +%7.3fs  %s%s  %s%n",
        at.toNanos() / 1e9, "  ".repeat(depth), node.start().name().orElse("?"), outcome);
    for (Node child : node.children()) {
      print(child, depth + 1, origin, out);
    }
  }
}
