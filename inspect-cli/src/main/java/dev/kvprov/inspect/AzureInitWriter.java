package dev.kvprov.inspect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.Optional;

/**
 * azure-init's records: {@code azure-init-<version>|<vm id>|<level>|<name>|<uuid>}, long values cut
 * every 1,022 bytes under one key.
 */
final class AzureInitWriter extends Writer {
  static final String PREFIX = "azure-init-";

  AzureInitWriter() {
    super("azure-init", "#b07aa1");
  }

  @Override
  boolean owns(String key) {
    return key.startsWith(PREFIX);
  }

  @Override
  JsonNode event(Item item) {
    Optional<AzureInitRecord> parsed = AzureInitRecord.parse(item.key(), item.value());
    if (parsed.isEmpty()) {
      return null;
    }
    AzureInitRecord r = parsed.get();
    ObjectNode node = Json.object();
    node.put("type", r.isSpan() ? "span" : "event");
    node.put("level", r.level());
    node.put("name", r.name());
    put(node, "time", r.start().map(Instant::toString));
    if (r.isSpan()) {
      put(node, "start", r.start().map(Instant::toString));
      put(node, "end", r.end().map(Instant::toString));
    }
    node.put("status", r.level().equals("ERROR") ? "error" : "ok");
    put(node, "message", r.message());
    node.put("version", r.version());
    node.put("vm_id", r.vmId());
    return node;
  }

  private static void put(ObjectNode node, String field, Optional<String> value) {
    value.ifPresent(v -> node.put(field, v));
  }
}
