package dev.kvprov.inspect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * cloud-init's Hyper-V KVP handler: {@code CLOUD_INIT|…} keys, an event's JSON in {@code msg_i}
 * chunks.
 */
final class CloudInitWriter extends Writer {
  CloudInitWriter() {
    super("cloud-init", "#59a14f");
  }

  @Override
  boolean owns(String key) {
    return key.startsWith("CLOUD_INIT|");
  }

  @Override
  JsonNode event(Item item) {
    JsonNode event;
    try {
      event = Json.parse(item.value());
    } catch (Exception e) {
      return null;
    }
    if (!(event instanceof ObjectNode node)) {
      return null;
    }
    Instant ts = SpanForest.time(node.path("ts").asText(""));
    if (ts != null) {
      node.put("time", ts.toString());
    }
    if (node.has("result")) {
      node.put("status", node.path("result").asText().toLowerCase(Locale.ROOT));
    }
    if (node.has("msg")) {
      node.put("message", node.path("msg").asText());
    }
    return node;
  }

  @Override
  SpanReader spans() {
    return new CloudInitSpans();
  }

  @Override
  PointReader points() {
    return new Points();
  }

  /** {@code CLOUD_INIT|<boot epoch>|<type>|<name>|<vm id>|<uuid>} since 26.1; before, no vm id. */
  @Override
  Origin origin(Item item) {
    String[] parts = item.key().split("\\|", -1);
    Long boot = parts.length > 1 && parts[1].matches("\\d{1,12}") ? Long.parseLong(parts[1]) : null;
    return new Origin(parts.length == 6 ? parts[4] : null, false, boot);
  }

  /**
   * Events other than start and finish (those are spans) are points; the boot in the keys, whole
   * seconds, tells when the boot began: the smallest, since each stage writes its own estimate.
   */
  private final class Points implements PointReader {
    private Long bootEpoch;

    @Override
    public void add(Item item, List<PointEvents.Point> points) {
      Long epoch = origin(item).bootEpoch();
      if (epoch != null) {
        bootEpoch = bootEpoch == null ? epoch : Math.min(epoch, bootEpoch);
      }
      JsonNode event = event(item);
      if (event == null) {
        return;
      }
      String type = event.path("type").asText("");
      if (type.equals("start") || type.equals("finish")) {
        return;
      }
      String message = event.path("msg").asText("");
      if (type.equals("compressed")) {
        // A base64 blob says nothing on a timeline.
        message = "compressed, " + message.length() + " chars: kvp decode shows it";
      }
      String status = event.path("result").asText("SUCCESS").equals("FAIL") ? "error" : null;
      points.add(
          new PointEvents.Point(
              SpanForest.time(event.path("ts").asText("")),
              null,
              name(),
              type,
              event.path("name").asText(""),
              status,
              message));
    }

    @Override
    public Boot boot() {
      return bootEpoch == null
          ? null
          : new Boot(
              Instant.ofEpochSecond(bootEpoch),
              name(),
              "from cloud-init keys (boot epoch, whole seconds)");
    }
  }
}
