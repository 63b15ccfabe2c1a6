package dev.kvprov.inspect;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.Locale;

/**
 * The parsed fields of a known writer's item, for {@code list --json}'s {@code event}: every writer
 * gets {@code type}, {@code name}, {@code time}, {@code status} and {@code message} where it has
 * them, plus what is its own (cloud-init's event JSON is kept whole).
 */
final class Events {
  private Events() {}

  /** The event of an item, as its writer reads it; null if it has none. */
  static JsonNode of(Item item) {
    return item.writer().event(item);
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
}
