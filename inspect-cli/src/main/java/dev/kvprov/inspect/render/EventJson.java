package dev.kvprov.inspect.render;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvprov.inspect.text.Json;
import dev.kvprov.inspect.text.Text;
import dev.kvprov.inspect.writers.Event;

/** An item's {@link Event} as {@code list --json} writes it ({@code docs/inspect.md}). */
public final class EventJson {
  private EventJson() {}

  public static ObjectNode of(Event event) {
    ObjectNode written = event.asWritten().flatMap(EventJson::object).orElse(null);
    if (written != null) {
      // the writer's JSON kept whole, what kvp makes of it added
      event.times().at().ifPresent(t -> written.put("time", t));
      event.status().ifPresent(s -> written.put("status", s));
      event.message().ifPresent(m -> written.put("message", m));
      return written;
    }
    ObjectNode node = Json.object();
    node.put("type", event.kind());
    event.level().ifPresent(l -> node.put("level", l));
    event.name().ifPresent(n -> node.put("name", n));
    Event.Times times = event.times();
    times.at().ifPresent(t -> node.put("time", t));
    times.start().ifPresent(t -> node.put("start", t));
    times.end().ifPresent(t -> node.put("end", t));
    event.status().ifPresent(s -> node.put("status", s));
    times.duration().ifPresent(d -> node.put("duration_s", d.toNanos() / 1e9));
    times.sinceBoot().ifPresent(d -> node.put("since_boot_s", Text.millis(d) / 1e3));
    event.message().ifPresent(m -> node.put("message", m));
    event.attributes().forEach(node::put);
    return node;
  }

  private static java.util.Optional<ObjectNode> object(String json) {
    try {
      return Json.parse(json) instanceof ObjectNode node
          ? java.util.Optional.of(node)
          : java.util.Optional.empty();
    } catch (java.io.IOException e) {
      return java.util.Optional.empty(); // not when its writer read it: then it has no event
    }
  }
}
