package dev.kvprov.inspect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvprov.otel.KvpRecordFormat;
import dev.kvprov.otel.KvprovRecord;
import java.util.Locale;

/**
 * Records of kvprov itself: its key grammar, and {@code |i/n} pieces, are {@link
 * KvpRecordFormat}'s.
 */
final class KvprovWriter extends Writer {
  KvprovWriter() {
    super("kvprov", "#4e79a7");
  }

  @Override
  boolean owns(String key) {
    return key.startsWith(KvpRecordFormat.KEY_PREFIX);
  }

  @Override
  JsonNode event(Item item) {
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
}
