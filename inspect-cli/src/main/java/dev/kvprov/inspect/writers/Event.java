package dev.kvprov.inspect.writers;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * What an item says happened, as its writer reads it: what {@code list} and {@code watch} show, and
 * what {@code list --json} writes as {@code event} ({@code EventJson}).
 *
 * @param kind its writer's word for it: {@code start}, {@code end}, {@code event}, {@code report}…
 *     ({@code type} in JSON); empty when the writer does not say
 * @param level DEBUG, INFO, WARN or ERROR as the writer put it
 * @param status how it ended, in the writer's words ({@code ok}, {@code error}, {@code fail}…)
 * @param attributes the writer's own fields, in the order it gives them ({@code trace_id}, {@code
 *     vm_id}…)
 * @param asWritten the event as its writer wrote it, a JSON object (cloud-init's), which {@code
 *     list --json} keeps whole; empty when the writer's fields are all it has
 */
public record Event(
    String kind,
    Optional<String> name,
    Optional<String> level,
    Optional<String> status,
    Times times,
    Optional<String> message,
    Map<String, String> attributes,
    Optional<String> asWritten) {
  public Event {
    attributes = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
  }

  /**
   * When it happened, as the writer wrote the times (RFC 3339 texts are kept as written).
   *
   * @param at when it happened
   * @param sinceBoot when it happened, by the writer's monotonic clock since boot
   * @param duration how long it took, when the writer says so rather than giving both ends
   */
  public record Times(
      Optional<String> at,
      Optional<String> start,
      Optional<String> end,
      Optional<Duration> sinceBoot,
      Optional<Duration> duration) {
    static final Times NONE =
        new Times(
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty());

    static Times at(Optional<String> at) {
      return new Times(at, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());
    }

    /** When it happened, read; empty when it does not say or does not read. */
    public Optional<Instant> instant() {
      return at.map(SpanForest::time);
    }

    /** A span's length: its duration, or its start to its end. */
    public Optional<Duration> length() {
      if (duration.isPresent()) {
        return duration;
      }
      Instant from = start.map(SpanForest::time).orElse(null);
      Instant to = end.map(SpanForest::time).orElse(null);
      return from == null || to == null
          ? Optional.empty()
          : Optional.of(Duration.between(from, to));
    }
  }

  /** Its level as the writer put it, or from its status (cloud-init's results). */
  public String severity() {
    return level.orElseGet(
        () ->
            switch (status.orElse("").toLowerCase(Locale.ROOT)) {
              case "fail", "error" -> "ERROR";
              case "warn" -> "WARN";
              default -> "INFO";
            });
  }
}
