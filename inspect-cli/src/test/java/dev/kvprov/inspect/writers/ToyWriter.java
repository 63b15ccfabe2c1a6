package dev.kvprov.inspect.writers;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A writer kvp was never taught, in one class: keys {@code TOY|<name>|<i>/<n>}, values {@code
 * field=text;…} split anywhere into numbered pieces; an operation has {@code start} and {@code end}
 * (and {@code status}, {@code msg}), a moment has {@code at} and {@code msg}.
 */
final class ToyWriter {
  static final Writer WRITER = new Writer("toy", "#123456", new Rule(), new Reader());

  private ToyWriter() {}

  private static final class Rule extends RecordRule {
    @Override
    boolean owns(String key) {
      return key.startsWith("TOY|");
    }

    @Override
    public Piece piece(String key, String value, List<String> problems) {
      String[] parts = key.split("\\|");
      String[] piece = parts[parts.length - 1].split("/");
      return new Piece(
          key.substring(0, key.lastIndexOf('|')),
          Integer.parseInt(piece[0]),
          Integer.parseInt(piece[1]));
    }
  }

  private static Map<String, String> fields(String value) {
    Map<String, String> fields = new LinkedHashMap<>();
    for (String field : value.split(";")) {
      int eq = field.indexOf('=');
      if (eq > 0) {
        fields.put(field.substring(0, eq), field.substring(eq + 1));
      }
    }
    return fields;
  }

  private static String name(Item item) {
    return item.key().split("\\|")[1];
  }

  /** Its items: each value's fields, read once. */
  private static final class Reader extends ItemReader<Map<String, String>> {
    @Override
    Optional<Map<String, String>> reading(Item item) {
      return Optional.of(fields(item.value()));
    }

    @Override
    Optional<Event> event(Item item, Map<String, String> f) {
      return Optional.of(
          new Event(
              f.containsKey("at") ? "moment" : "operation",
              Optional.of(name(item)),
              Optional.empty(),
              Optional.of(f.getOrDefault("status", "ok")),
              Event.Times.at(Optional.of(f.getOrDefault("at", f.getOrDefault("start", "")))),
              Optional.of(f.getOrDefault("msg", "")),
              Map.of(),
              Optional.empty()));
    }

    @Override
    SpanReader<Map<String, String>> spans() {
      List<SpanNode> spans = new ArrayList<>();
      return new SpanReader<>() {
        @Override
        public void add(Item item, Map<String, String> f) {
          if (f.containsKey("start")) {
            SpanNode span = new SpanNode(name(item), WRITER);
            span.start = SpanForest.time(f.get("start"));
            span.end = SpanForest.time(f.getOrDefault("end", ""));
            span.status = f.getOrDefault("status", "ok");
            span.message = f.getOrDefault("msg", "");
            spans.add(span);
          }
        }

        @Override
        public List<SpanNode> roots(List<String> notes) {
          return spans;
        }
      };
    }

    @Override
    PointReader<Map<String, String>> points() {
      return (item, reading, points) -> {
        Map<String, String> f = reading.orElse(Map.of());
        if (f.containsKey("at")) {
          points.add(
              new PointEvents.Point(
                  SpanForest.time(f.get("at")),
                  null,
                  WRITER.name(),
                  "moment",
                  name(item),
                  null,
                  f.getOrDefault("msg", "")));
        }
      };
    }
  }
}
