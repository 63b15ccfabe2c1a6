package dev.kvprov.inspect.writers;

import dev.kvprov.otel.KvpRecordFormat;
import dev.kvprov.otel.KvprovRecord;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Records of kvprov itself: its key grammar, and {@code |i/n} pieces, are {@link
 * KvpRecordFormat}'s.
 */
final class KvprovWriter {
  static final Writer WRITER = new Writer("kvprov", "#4e79a7", new Rule(), new Reader());

  private KvprovWriter() {}

  /** Its records: keys and {@code |i/n} pieces by its grammar. */
  private static final class Rule extends RecordRule {
    @Override
    boolean owns(String key) {
      return key.startsWith(KvpRecordFormat.KEY_PREFIX);
    }

    /** A newer kvprov's record is not damage: this kvp is older. */
    @Override
    public boolean isDamage(String problem) {
      return !problem.equals(NEWER_GRAMMAR);
    }

    /** Pieces carry {@code |i/n}: the grammar says where ({@link KvpRecordFormat#key}). */
    @Override
    public Piece piece(String key, String value, List<String> problems) {
      KvpRecordFormat.Key read = KvpRecordFormat.key(key).orElse(null);
      if (read == null) {
        return null;
      }
      if (!read.known()) {
        problems.add(NEWER_GRAMMAR);
        return null;
      }
      return read.base().equals(key) || read.pieces() == 0
          ? null
          : new Piece(read.base(), read.piece(), read.pieces());
    }
  }

  /** Its items: each decoded once ({@link KvprovRecord}) for its event, its spans and points. */
  private static final class Reader extends ItemReader<KvprovRecord> {
    @Override
    Optional<KvprovRecord> reading(Item item) {
      return KvpRecordFormat.decodeJoined(item.key(), item.value());
    }

    @Override
    Optional<Event> event(Item item, KvprovRecord r) {
      String name = null;
      String status = null;
      String time = null;
      String start = null;
      String end = null;
      String message = null;
      Map<String, String> attributes = new LinkedHashMap<>();
      for (KvprovRecord.Field field : r.fields()) {
        String text = field.text();
        switch (field.label()) {
          case KvpRecordFormat.NAME -> name = text;
          case KvpRecordFormat.EVENT -> attributes.put("event", text);
          case KvpRecordFormat.TIME -> time = text;
          case KvpRecordFormat.START -> start = text;
          case KvpRecordFormat.END -> end = text;
          case KvpRecordFormat.STATUS -> status = text;
          case KvpRecordFormat.ERROR, KvpRecordFormat.BODY, KvpRecordFormat.DROPPED ->
              message = message == null ? text : message;
          case KvpRecordFormat.TRACE -> attributes.put("trace_id", text);
          case KvpRecordFormat.SPAN -> attributes.put("span_id", text);
          case KvpRecordFormat.PARENT -> attributes.put("parent_span_id", text);
          default -> {}
        }
      }
      if (message == null) {
        message = r.warning().orElse(null); // a span that did not fail, but warned: a retry
      }
      // kvprov writes RFC 3339 UTC already: the texts are given as written
      String when = time != null ? time : end != null ? end : start;
      // when the item happened, since boot: an end record's end, any other record's time
      Optional<Duration> sinceBoot =
          r.kind() == KvprovRecord.Kind.END ? r.endSinceBoot().or(r::sinceBoot) : r.sinceBoot();
      return Optional.of(
          new Event(
              r.kind().name().toLowerCase(Locale.ROOT),
              Optional.ofNullable(name),
              Optional.of(r.level().name()),
              Optional.ofNullable(status),
              new Event.Times(
                  Optional.ofNullable(when),
                  Optional.ofNullable(start),
                  Optional.ofNullable(end),
                  sinceBoot,
                  Optional.empty()),
              Optional.ofNullable(message),
              attributes,
              Optional.empty()));
    }

    @Override
    SpanReader<KvprovRecord> spans() {
      return new KvprovSpans();
    }

    @Override
    PointReader<KvprovRecord> points() {
      return new Points();
    }

    @Override
    public Origin origin(Item item) {
      return KvpRecordFormat.key(item.key())
          .filter(KvpRecordFormat.Key::known)
          .map(k -> new Origin(k.vmId(), false, null))
          .orElse(Origin.NONE);
    }
  }

  /**
   * Span events and log records are points (starts and ends are spans); every record with a wall
   * time and a {@code Boot} time tells when the boot began, to the millisecond.
   */
  private static final class Points implements PointReader<KvprovRecord> {
    private Instant boot;

    @Override
    public void add(Item item, Optional<KvprovRecord> reading, List<PointEvents.Point> points) {
      if (reading.isEmpty()
          || reading.get().kind() == KvprovRecord.Kind.START
          || reading.get().kind() == KvprovRecord.Kind.END) {
        return;
      }
      KvprovRecord r = reading.get();
      Optional<Instant> time = r.time();
      Optional<Duration> sinceBoot = r.sinceBoot();
      if (time.isPresent() && sinceBoot.isPresent()) {
        clue(time.get(), sinceBoot.get());
      }
      String status = r.level() == KvprovRecord.Level.ERROR ? "error" : null;
      String name = r.name().orElse("?");
      switch (r.kind()) {
        case EVENT -> {
          String event = r.field(KvpRecordFormat.EVENT).orElse("");
          if (event.startsWith(MILESTONE)) {
            // the boot's milestones (systemd's, kvprov's start, Ready): a lane of their own
            String milestone = event.substring(MILESTONE.length());
            points.add(point(time, sinceBoot, "milestone", milestone, null, ""));
          } else {
            points.add(point(time, sinceBoot, "event", name, status, event));
          }
        }
        case LOG -> {
          String severity = r.field(KvpRecordFormat.SEVERITY).map(s -> s + " ").orElse("");
          points.add(
              point(
                  time,
                  sinceBoot,
                  "log",
                  name,
                  status,
                  severity + r.field(KvpRecordFormat.BODY).orElse("")));
        }
        default -> {}
      }
    }

    @Override
    public void span(SpanNode span) {
      if (span.start != null && span.startSinceBoot != null) {
        clue(span.start, span.startSinceBoot);
      }
    }

    /** One clue: a wall time and the monotonic time since boot at that moment. */
    private void clue(Instant time, Duration sinceBoot) {
      Instant at;
      try {
        at = time.minus(sinceBoot);
      } catch (DateTimeException e) {
        return; // a damaged record near the ends of time
      }
      boot = boot == null || at.isBefore(boot) ? at : boot;
    }

    @Override
    public Boot boot() {
      return boot == null
          ? null
          : new Boot(boot, Writers.KVPROV.name(), "from kvprov records (wall time - Boot)");
    }

    private static PointEvents.Point point(
        Optional<Instant> time,
        Optional<Duration> sinceBoot,
        String kind,
        String name,
        String status,
        String message) {
      return new PointEvents.Point(
          time.orElse(null),
          sinceBoot.orElse(null),
          Writers.KVPROV.name(),
          kind,
          name,
          status,
          message);
    }
  }

  /** How the agent names a boot milestone's event ({@code boot milestone: kernel}). */
  static final String MILESTONE = "boot milestone: ";

  private static final String NEWER_GRAMMAR =
      "a kvprov key of a grammar this kvp does not know (it reads kvprov-"
          + KvpRecordFormat.VERSION
          + ")";
}
