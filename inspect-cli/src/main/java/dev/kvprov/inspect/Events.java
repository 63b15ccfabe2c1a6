package dev.kvprov.inspect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.otel.KvpRecordFormat;
import dev.kvprov.otel.KvprovRecord;
import dev.kvprov.otel.ProvisioningReport;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The parsed fields of a known writer's item, for {@code list --json}'s {@code event}: every writer
 * gets {@code type}, {@code name}, {@code time}, {@code status} and {@code message} where it has
 * them, plus what is its own (cloud-init's event JSON is kept whole).
 */
final class Events {
  private Events() {}

  /** The event of an item, or null for writers we do not know. */
  static JsonNode of(Item item, ObjectMapper json) {
    return switch (item.writer()) {
      case "cloud-init" -> cloudInit(item, json);
      case "kvprov" -> kvprov(item, json);
      case "azure-init" -> azureInit(item, json);
      case "report" -> report(item, json);
      default -> null;
    };
  }

  /** DEBUG, INFO, WARN or ERROR as the writer put it (cloud-init: from the result), or null. */
  static String level(Item item, JsonNode event) {
    if (event == null) {
      return null;
    }
    if (event.has("level")) {
      return event.path("level").asText();
    }
    String status = event.path("status").asText("").toLowerCase(Locale.ROOT);
    return switch (status) {
      case "fail", "error" -> "ERROR";
      case "warn" -> "WARN";
      default -> "INFO";
    };
  }

  /** When the item happened, or null when it does not say. */
  static Instant time(JsonNode event) {
    return event == null ? null : SpanForest.time(event.path("time").asText(""));
  }

  private static JsonNode cloudInit(Item item, ObjectMapper json) {
    JsonNode event;
    try {
      event = json.readTree(item.value());
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

  private static JsonNode kvprov(Item item, ObjectMapper json) {
    List<KvpRecordFormat.DecodedRecord> decoded =
        KvpRecordFormat.decode(List.of(new KvpRecord(item.key(), item.value()))).records();
    if (decoded.isEmpty()) {
      return null;
    }
    KvprovRecord r = decoded.get(0).record();
    ObjectNode node = json.createObjectNode();
    node.put("type", r.kind().name().toLowerCase(Locale.ROOT));
    node.put("level", r.level().name());
    put(node, "name", r.name());
    put(node, "event", r.field("Event"));
    put(node, "time", r.time().or(r::end).or(r::start).map(Instant::toString));
    put(node, "start", r.start().map(Instant::toString));
    put(node, "end", r.end().map(Instant::toString));
    r.sinceBoot().ifPresent(d -> node.put("since_boot_s", d.toNanos() / 1e9));
    put(node, "status", r.status());
    put(node, "message", r.errorMessage().or(() -> r.field("Body")).or(() -> r.field("Dropped")));
    put(node, "trace_id", r.traceId());
    put(node, "span_id", r.spanId());
    put(node, "parent_span_id", r.parentSpanId());
    return node;
  }

  private static JsonNode azureInit(Item item, ObjectMapper json) {
    Optional<AzureInitRecord> parsed = AzureInitRecord.parse(item.key(), item.value());
    if (parsed.isEmpty()) {
      return null;
    }
    AzureInitRecord r = parsed.get();
    ObjectNode node = json.createObjectNode();
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

  private static JsonNode report(Item item, ObjectMapper json) {
    ProvisioningReport report;
    try {
      report = ProvisioningReport.parse(item.value());
    } catch (RuntimeException e) {
      return null;
    }
    ObjectNode node = json.createObjectNode();
    node.put("type", "report");
    node.put("name", "PROVISIONING_REPORT");
    put(node, "time", report.get("timestamp"));
    put(node, "status", report.get("result"));
    put(node, "message", report.get("reason"));
    put(node, "agent", report.get("agent"));
    put(node, "vm_id", report.get("vm_id"));
    return node;
  }

  private static void put(ObjectNode node, String field, Optional<String> value) {
    value.ifPresent(v -> node.put(field, v));
  }
}
