package dev.kvprov.inspect.render;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvprov.inspect.spans.Fleet;
import dev.kvprov.inspect.spans.VmSummary;
import dev.kvprov.inspect.text.Json;
import dev.kvprov.inspect.text.Text;
import java.io.PrintWriter;
import java.time.Duration;

/**
 * {@code kvp fleet --json}: one JSON object, written as the VMs are read — {@code "vms"} first, a
 * VM a line, then the fleet — so that it streams like the text and {@code jq} reads it whole.
 */
public final class FleetJson {
  private final PrintWriter out;
  private boolean first = true;

  public FleetJson(PrintWriter out) {
    this.out = out;
  }

  public void header() {
    out.println("{\"vms\": [");
  }

  public void vm(VmSummary vm) {
    ObjectNode node = Json.object();
    node.put("name", vm.name());
    node.put("file", vm.file());
    node.put("verdict", word(vm.verdict()));
    node.put("reason", vm.reason());
    millis(node, "duration_ms", vm.duration().orElse(null));
    if (vm.slowest().isPresent()) {
      node.set("slowest_step", step(vm.slowest().get()));
    } else {
      node.putNull("slowest_step");
    }
    ArrayNode steps = node.putArray("steps");
    vm.steps().forEach(s -> steps.add(step(s)));
    out.println((first ? "" : ",") + Json.write(node));
    first = false;
  }

  public void summary(Fleet fleet) {
    ObjectNode rest = Json.object();
    rest.put("count", fleet.vms());
    ObjectNode verdicts = rest.putObject("verdicts");
    fleet.verdicts().forEach((v, n) -> verdicts.put(word(v), n));
    rest.set("boot", stats(fleet.boots()));
    ArrayNode steps = rest.putArray("steps");
    fleet.steps().forEach(s -> steps.add(stats(s)));
    rest.put("steps_left_out", fleet.stepsLeftOut());
    ArrayNode failures = rest.putArray("failures");
    for (Fleet.Failure f : fleet.failures()) {
      ObjectNode failure = failures.addObject();
      failure.put("verdict", word(f.verdict()));
      failure.put("reason", f.reason());
      failure.put("vms", f.vms());
      ArrayNode named = failure.putArray("named");
      f.named().forEach(named::add);
    }
    rest.put("reasons_left_out", fleet.reasonsLeftOut());
    String fields = Json.write(rest);
    // the fleet's fields follow the array in the same object: {"vms": [...], "count": ...}
    out.println("], " + fields.substring(1));
  }

  private static ObjectNode step(VmSummary.Step s) {
    ObjectNode node = Json.object();
    node.put("name", s.name());
    millis(node, "duration_ms", s.duration());
    node.put("failed", s.failed());
    node.put("finished", s.finished());
    return node;
  }

  private static ObjectNode stats(Fleet.StepStats s) {
    ObjectNode node = Json.object();
    node.put("name", s.name());
    node.put("vms", s.vms());
    node.put("failed", s.failed());
    node.put("unfinished", s.unfinished());
    boolean timed = s.vms() > s.unfinished();
    millis(node, "p50_ms", timed ? s.p50() : null);
    millis(node, "p95_ms", timed ? s.p95() : null);
    millis(node, "max_ms", timed ? s.max() : null);
    return node;
  }

  private static void millis(ObjectNode node, String field, Duration d) {
    if (d == null) {
      node.putNull(field);
    } else {
      node.put(field, Text.millis(d));
    }
  }

  private static String word(VmSummary.Verdict v) {
    return v.word.replace(' ', '_');
  }
}
