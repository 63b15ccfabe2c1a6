package dev.kvprov.inspect.writers;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * azure-init's records: {@code azure-init-<version>|<vm id>|<level>|<name>|<uuid>}, long values cut
 * every 1,022 bytes under one key.
 */
final class AzureInitWriter {
  static final String PREFIX = "azure-init-";

  static final Writer WRITER = new Writer("azure-init", "#b07aa1", new Rule(), new Reader());

  private AzureInitWriter() {}

  /** Its records: its own keys, long values in 1,022-byte pieces under one key. */
  private static final class Rule extends RecordRule {
    @Override
    boolean owns(String key) {
      return key.startsWith(PREFIX);
    }

    /** 1,022-byte pieces under one key, cut between bytes. */
    @Override
    public boolean piecesShareKey() {
      return true;
    }
  }

  /** Its items: each parsed once ({@link AzureInitRecord}), for its event, spans and points. */
  private static final class Reader extends ItemReader<AzureInitRecord> {
    @Override
    Optional<AzureInitRecord> reading(Item item) {
      return AzureInitRecord.parse(item.key(), item.value());
    }

    @Override
    Optional<Event> event(Item item, AzureInitRecord r) {
      Optional<String> start = r.start().map(Instant::toString);
      return Optional.of(
          new Event(
              r.isSpan() ? "span" : "event",
              Optional.of(r.name()),
              Optional.of(r.level()),
              Optional.of(r.level().equals("ERROR") ? "error" : "ok"),
              new Event.Times(
                  start,
                  r.isSpan() ? start : Optional.empty(),
                  r.isSpan() ? r.end().map(Instant::toString) : Optional.empty(),
                  Optional.empty(),
                  Optional.empty()),
              r.message(),
              ordered("version", r.version(), "vm_id", r.vmId()),
              Optional.empty()));
    }

    private static Map<String, String> ordered(String k1, String v1, String k2, String v2) {
      Map<String, String> map = new LinkedHashMap<>();
      map.put(k1, v1);
      map.put(k2, v2);
      return map;
    }

    /**
     * Spans written when they close, with no parent: nested by time. A span's one record comes
     * after those of the spans inside it, so the pool's order breaks no ties here (every moment is
     * given record 0).
     */
    @Override
    SpanReader<AzureInitRecord> spans() {
      ContainedSpans spans = new ContainedSpans();
      return new SpanReader<>() {
        @Override
        public void add(Item item, AzureInitRecord r) {
          if (r.start().isEmpty()) {
            return;
          }
          boolean error = r.level().equals("ERROR");
          if (r.isSpan()) {
            SpanNode node = new SpanNode(r.name(), WRITER);
            node.start = r.start().get();
            node.end = r.end().get();
            node.status = error ? "error" : "ok";
            spans.span(node);
          } else if (error) {
            spans.failure(r.start().get(), -1, r.message().orElse(""));
          }
        }

        @Override
        public List<SpanNode> roots(List<String> notes) {
          return spans.roots();
        }
      };
    }

    /** Its events ({@code Time: … | Event: …}) are points. */
    @Override
    PointReader<AzureInitRecord> points() {
      return (item, reading, points) ->
          reading
              .filter(r -> !r.isSpan())
              .ifPresent(
                  r ->
                      points.add(
                          new PointEvents.Point(
                              r.start().orElse(null),
                              null,
                              WRITER.name(),
                              "event",
                              r.name(),
                              r.level().equals("ERROR") ? "error" : null,
                              r.message().orElse(""))));
    }

    @Override
    public Origin origin(Item item) {
      String[] parts = item.key().split("\\|", 3);
      return parts.length > 1 ? new Origin(parts[1], false, null) : Origin.NONE;
    }
  }
}
