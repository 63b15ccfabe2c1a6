package dev.kvprov.inspect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvprov.otel.KvpRecordFormat;
import dev.kvprov.otel.KvprovRecord;
import dev.kvprov.otel.ProvisioningReport;
import java.time.Instant;
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
  static JsonNode of(Item item) {
    return switch (item.writer()) {
      case "cloud-init" -> cloudInit(item);
      case "kvprov" -> kvprov(item);
      case "azure-init" -> azureInit(item);
      case "report" -> report(item);
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

  private static JsonNode cloudInit(Item item) {
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

  private static JsonNode kvprov(Item item) {
    KvprovRecord r = KvpRecordFormat.decodeJoined(item.key(), item.value()).orElse(null);
    if (r == null) {
      return null;
    }
    ObjectNode node = Json.object();
    node.put("type", r.kind().name().toLowerCase(Locale.ROOT));
    node.put("level", r.level().name());
    String time = null;
    String start = null;
    String end = null;
    String message = null;
    for (KvprovRecord.Field field : r.fields()) {
      String text = field.text();
      switch (field.label()) {
        case "Name" -> node.put("name", text);
        case "Event" -> node.put("event", text);
        case "Time" -> time = text;
        case "Start" -> start = text;
        case "End" -> end = text;
        case "Status" -> node.put("status", text);
        case "Error", "Body", "Dropped" -> message = message == null ? text : message;
        case "Trace" -> node.put("trace_id", text);
        case "Span" -> node.put("span_id", text);
        case "Parent" -> node.put("parent_span_id", text);
        default -> {}
      }
    }
    // kvprov writes RFC 3339 UTC already: the texts are given as written
    String when = time != null ? time : end != null ? end : start;
    if (when != null) {
      node.put("time", when);
    }
    if (start != null) {
      node.put("start", start);
    }
    if (end != null) {
      node.put("end", end);
    }
    r.sinceBoot().ifPresent(d -> node.put("since_boot_s", Text.millis(d) / 1e3));
    if (message != null) {
      node.put("message", message);
    }
    return node;
  }

  private static JsonNode azureInit(Item item) {
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

  private static JsonNode report(Item item) {
    ProvisioningReport report;
    try {
      report = ProvisioningReport.parse(item.value());
    } catch (RuntimeException e) {
      return null;
    }
    ObjectNode node = Json.object();
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
