package dev.kvprov.inspect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
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
}
