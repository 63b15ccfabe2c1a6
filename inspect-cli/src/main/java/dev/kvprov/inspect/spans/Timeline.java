package dev.kvprov.inspect.spans;

import dev.kvprov.inspect.writers.PointEvents;
import dev.kvprov.inspect.writers.PointReader;
import dev.kvprov.inspect.writers.SpanNode;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;

/**
 * One timeline across writers: every span's start and end and every point event, in time since
 * boot, merged and sorted. The boot comes from {@code --boot-time}, else from kvprov's records
 * (wall time less their monotonic {@code Boot}: millisecond precision), else from cloud-init's keys
 * (whole seconds); with none of these, times count from the first event, and {@link Boot} says so.
 */
public final class Timeline {
  /** Messages are cut to this many characters, so that one runaway text cannot flood a page. */
  static final int MAX_MESSAGE = 1024;

  /** Where the boot time came from: the option, a writer's records, or nowhere. */
  public record Source(String token, String description) {
    static final Source OPTION = new Source("option", "given with --boot-time");
    public static final Source NONE = new Source("none", "unknown");
  }

  /**
   * What times count from.
   *
   * @param time the boot time, or null when unknown
   * @param origin time zero: the boot, or when that is unknown the first event (null: no event)
   */
  public record Boot(Instant time, Source source, Instant origin) {}

  /**
   * One line of the timeline.
   *
   * @param at time since boot (or since the first event, see {@link Boot})
   * @param time the wall-clock time the writer recorded, or null
   * @param kind {@code start}, {@code end}, or a point's kind ({@code event}, {@code log}, {@code
   *     report}, a cloud-init event type)
   * @param status a span's {@code ok}, {@code error} or {@code unfinished}; a point's {@code error}
   *     or {@code ok}, or null
   * @param duration an end row's span duration, else null
   * @param record the pool record that told it, for a writer that writes each record as things
   *     happen (azure-init's DIAG); -1 for the others
   */
  public record Row(
      Duration at,
      Instant time,
      String writer,
      String kind,
      String name,
      String status,
      String message,
      Duration duration,
      int record) {}

  /** One span, for a waterfall: {@code end} is null when it never finished (or is unreadable). */
  public record Bar(
      String name,
      String writer,
      int depth,
      Duration start,
      Duration end,
      String status,
      String message,
      String attributes) {}

  public final Boot boot;
  public final List<Row> rows = new ArrayList<>();

  /** Spans in tree order (roots by start, children under their parent). */
  public final List<Bar> bars = new ArrayList<>();

  /** Spans and events left out because they carry no readable time. */
  public int undated;

  private Timeline(Boot boot) {
    this.boot = boot;
  }

  /**
   * @param bootTime the boot time given by the user, or null to find it in the pool
   */
  public static Timeline of(List<SpanNode> roots, PointEvents events, Instant bootTime) {
    // A loop, not recursion: a damaged or hostile pool can nest spans thousands deep.
    Deque<SpanNode> pending = new ArrayDeque<>(roots);
    while (!pending.isEmpty()) {
      SpanNode node = pending.pop();
      events.span(node);
      pending.addAll(node.children);
    }
    Timeline timeline = new Timeline(boot(roots, events, bootTime));
    timeline.spans(roots);
    events.points.forEach(timeline::point);
    // Stable: equal times keep tree order (a parent's start before its child's, a child's end
    // before its parent's), then pool order.
    timeline.rows.sort(Comparator.comparing(Row::at));
    timeline.inRecordOrder();
    return timeline;
  }

  /**
   * Rows of one time whose writer writes its records as things happen (whole-second timestamps tie
   * often) take their places among themselves in the order of their records: an event between an
   * operation's start and finish stays between them. Other rows keep their places.
   */
  private void inRecordOrder() {
    int from = 0;
    while (from < rows.size()) {
      int to = from + 1;
      while (to < rows.size() && rows.get(to).at().equals(rows.get(from).at())) {
        to++;
      }
      List<Integer> places = new ArrayList<>();
      for (int i = from; i < to; i++) {
        if (rows.get(i).record() >= 0) {
          places.add(i);
        }
      }
      if (places.size() > 1) {
        List<Row> ordered = new ArrayList<>();
        places.forEach(i -> ordered.add(rows.get(i)));
        ordered.sort(Comparator.comparingInt(Row::record)); // stable: a start before its end
        for (int i = 0; i < places.size(); i++) {
          rows.set(places.get(i), ordered.get(i));
        }
      }
      from = to;
    }
  }

  private static Boot boot(List<SpanNode> roots, PointEvents events, Instant given) {
    if (given != null) {
      return new Boot(given, Source.OPTION, given);
    }
    PointReader.Boot found = events.boot();
    if (found != null) {
      return new Boot(found.time(), new Source(found.source(), found.description()), found.time());
    }
    List<Instant> times = new ArrayList<>();
    // A loop, not recursion: a damaged or hostile pool can nest spans thousands deep.
    Deque<SpanNode> pending = new ArrayDeque<>(roots);
    while (!pending.isEmpty()) {
      SpanNode node = pending.pop();
      times.add(node.start);
      times.add(node.end);
      pending.addAll(node.children);
    }
    events.points.forEach(p -> times.add(p.time()));
    Instant first =
        times.stream().filter(t -> t != null).min(Comparator.naturalOrder()).orElse(null);
    return new Boot(null, Source.NONE, first);
  }

  /**
   * A writer's own time since boot is monotonic (a wall-clock step between two of its processes
   * does not bend it), so it wins over wall time less the boot — unless the user gave the boot.
   */
  private Duration at(Instant time, Duration sinceBoot) {
    if (sinceBoot != null
        && !boot.source().equals(Source.OPTION)
        && !boot.source().equals(Source.NONE)) {
      return sinceBoot;
    }
    return time == null || boot.origin() == null ? null : Duration.between(boot.origin(), time);
  }

  /** A span entered (its start row and bar) or left (its end row, after its children's). */
  private record Step(SpanNode node, int depth, boolean leaving) {}

  /**
   * Rows and bars in tree order: a span's start, its children's rows, then its end. A loop over an
   * explicit stack, not recursion: a damaged or hostile pool can nest spans thousands deep.
   */
  private void spans(List<SpanNode> roots) {
    Deque<Step> steps = new ArrayDeque<>();
    for (int i = roots.size() - 1; i >= 0; i--) {
      steps.push(new Step(roots.get(i), 0, false));
    }
    while (!steps.isEmpty()) {
      Step step = steps.pop();
      SpanNode node = step.node();
      Duration start = at(node.start, node.startSinceBoot);
      Duration end = at(node.end, node.endSinceBoot);
      if (step.leaving()) {
        if (!node.status.equals("unfinished")) {
          Duration duration = start == null || end == null ? null : end.minus(start);
          add(
              end,
              node.end,
              node.writer.name(),
              "end",
              node.name,
              node.status,
              node.message,
              duration,
              node.endRecord);
        }
        continue;
      }
      add(
          start,
          node.start,
          node.writer.name(),
          "start",
          node.name,
          node.status,
          "",
          null,
          node.startRecord);
      if (start != null) {
        bars.add(
            new Bar(
                node.name,
                node.writer.name(),
                step.depth(),
                start,
                end,
                node.status,
                cut(node.message),
                cut(attributes(node))));
      }
      steps.push(new Step(node, step.depth(), true));
      for (int i = node.children.size() - 1; i >= 0; i--) {
        steps.push(new Step(node.children.get(i), step.depth() + 1, false));
      }
    }
  }

  private void point(PointEvents.Point p) {
    add(
        at(p.time(), p.sinceBoot()),
        p.time(),
        p.writer(),
        p.kind(),
        p.name(),
        p.status(),
        p.message(),
        null,
        p.record());
  }

  private void add(
      Duration at,
      Instant time,
      String writer,
      String kind,
      String name,
      String status,
      String message,
      Duration duration,
      int record) {
    if (at == null) {
      undated++;
      return;
    }
    rows.add(new Row(at, time, writer, kind, name, status, cut(message), duration, record));
  }

  static String cut(String text) {
    if (text.length() <= MAX_MESSAGE) {
      return text;
    }
    int end = MAX_MESSAGE;
    if (Character.isHighSurrogate(text.charAt(end - 1))) {
      end--;
    }
    return text.substring(0, end) + "…[" + (text.length() - end) + " chars cut]";
  }

  /** Seconds, e.g. {@code 12.345678}: the double nearest the exact value, for any duration. */
  public static double seconds(Duration d) {
    return BigDecimal.valueOf(d.getSeconds()).add(BigDecimal.valueOf(d.getNano(), 9)).doubleValue();
  }

  /** A span's attributes as its writer recorded them: {@code key=value, …} (attempt, URL, …). */
  static String attributes(SpanNode node) {
    StringBuilder b = new StringBuilder();
    node.attributes.forEach(
        (key, value) ->
            b.append(b.length() == 0 ? "" : ", ").append(key.getKey()).append('=').append(value));
    return b.toString();
  }
}
