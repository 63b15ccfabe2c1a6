package dev.kvprov.inspect.writers;

import java.time.Instant;
import java.util.Optional;

/**
 * One azure-init value, read from its key {@code azure-init-<version>|<vm id>|<LEVEL>|<module:
 * span>|<uuid>} and its value: a span's {@code Start: … | End: …}, or an event's {@code Time: … |
 * Event: message=…, field=…}. azure-init writes no parent ids and a new uuid per value, so spans
 * are related only by time.
 *
 * @param version the writer's version, from the key
 * @param vmId the VM id, from the key
 * @param level {@code INFO}, {@code ERROR}, …
 * @param name the span's {@code module:span} name
 * @param start a span's start, or an event's time
 * @param end a span's end; empty for an event
 * @param message an event's text after {@code Event: }; empty for a span
 */
record AzureInitRecord(
    String version,
    String vmId,
    String level,
    String name,
    Optional<Instant> start,
    Optional<Instant> end,
    Optional<String> message) {

  boolean isSpan() {
    return end.isPresent();
  }

  /** Reads an azure-init item; empty when the key does not have azure-init's five parts. */
  static Optional<AzureInitRecord> parse(String key, String value) {
    if (!key.startsWith(AzureInitWriter.PREFIX)) {
      return Optional.empty();
    }
    String[] parts = key.split("\\|", -1);
    if (parts.length < 5) {
      return Optional.empty();
    }
    // The span name sits between the level and the uuid; should it hold a '|', keep it whole.
    String name = String.join("|", java.util.Arrays.asList(parts).subList(3, parts.length - 1));
    return Optional.of(
        new AzureInitRecord(
            parts[0].substring(AzureInitWriter.PREFIX.length()),
            parts[1],
            parts[2],
            name,
            field(value, "Start").or(() -> field(value, "Time")).flatMap(AzureInitRecord::time),
            field(value, "End").flatMap(AzureInitRecord::time),
            eventText(value)));
  }

  /** The text of {@code Label: text}, up to the next {@code " | "}. */
  private static Optional<String> field(String value, String label) {
    String prefix = label + ": ";
    int at = value.startsWith(prefix) ? 0 : value.indexOf(" | " + prefix);
    if (at < 0) {
      return Optional.empty();
    }
    int from = at == 0 ? prefix.length() : at + 3 + prefix.length();
    int to = value.indexOf(" | ", from);
    return Optional.of(value.substring(from, to < 0 ? value.length() : to));
  }

  /** An event's text runs to the end of the value: it may itself contain {@code " | "}. */
  private static Optional<String> eventText(String value) {
    String marker = "Event: ";
    int at = value.startsWith(marker) ? 0 : value.indexOf(" | " + marker);
    if (at < 0) {
      return Optional.empty();
    }
    return Optional.of(value.substring(at == 0 ? marker.length() : at + 3 + marker.length()));
  }

  private static Optional<Instant> time(String text) {
    return Optional.ofNullable(SpanForest.time(text.trim()));
  }
}
