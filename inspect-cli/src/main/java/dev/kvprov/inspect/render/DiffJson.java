package dev.kvprov.inspect.render;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvprov.inspect.spans.BootDiff;
import dev.kvprov.inspect.spans.BootDiff.Side;
import dev.kvprov.inspect.spans.BootDiff.Step;
import dev.kvprov.inspect.text.Json;
import dev.kvprov.inspect.text.Text;
import java.time.Duration;
import java.util.Optional;

/** {@code kvp diff --json}: one object, every step with both sides in full (docs/inspect.md). */
public final class DiffJson {
  private DiffJson() {}

  public static String of(BootDiff diff) {
    ObjectNode root = Json.object();
    root.put("headline", DiffText.headline(diff));
    boot(diff.a(), root.putObject("a"));
    boot(diff.b(), root.putObject("b"));
    millis(root, "change_ms", diff.change());
    root.put("first_failure", diff.firstFailure().map(Step::path).orElse(null));
    root.put("explains", diff.explains().map(Step::path).orElse(null));
    ArrayNode steps = root.putArray("steps");
    for (Step step : diff.steps()) {
      ObjectNode s = steps.addObject();
      s.put("path", step.path()).put("name", step.name()).put("writer", step.writer());
      s.put("depth", step.depth());
      side(step.a(), s, "a");
      side(step.b(), s, "b");
      millis(s, "change_ms", step.change());
      s.put("status_changed", step.statusChanged());
      s.put("attempts_changed", step.attemptsChanged());
      ArrayNode changes = s.putArray("attributes_changed");
      for (BootDiff.AttributeChange c : step.attributeChanges()) {
        changes
            .addObject()
            .put("key", c.key())
            .put("a", c.a().orElse(null))
            .put("b", c.b().orElse(null));
      }
    }
    return Json.write(root);
  }

  private static void boot(BootDiff.Boot boot, ObjectNode out) {
    out.put("title", boot.title()).put("verdict", boot.verdict()).put("source", boot.source());
    out.put("failed", boot.failed());
    millis(out, "duration_ms", boot.duration());
  }

  private static void side(Optional<Side> side, ObjectNode step, String name) {
    if (side.isEmpty()) {
      step.putNull(name);
      return;
    }
    Side s = side.get();
    ObjectNode out = step.putObject(name);
    out.put("runs", s.runs()).put("attempts", s.attempts());
    millis(out, "duration_ms", s.duration());
    out.put("status", s.status());
    if (!s.message().isEmpty()) {
      out.put("message", s.message());
    }
    ObjectNode attributes = out.putObject("attributes");
    s.attributes().forEach(attributes::put);
  }

  private static void millis(ObjectNode out, String field, Optional<Duration> d) {
    if (d.isEmpty()) {
      out.putNull(field);
    } else {
      out.put(field, Text.millis(d.get()));
    }
  }
}
