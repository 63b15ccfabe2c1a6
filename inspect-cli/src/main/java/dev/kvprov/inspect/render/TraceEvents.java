package dev.kvprov.inspect.render;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvprov.inspect.spans.BootSection;
import dev.kvprov.inspect.spans.Timeline;
import dev.kvprov.inspect.text.Json;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Boots as Chrome/Perfetto trace events (the JSON object format): a process per boot, a thread per
 * writer, every span a complete event ({@code "ph": "X"}) with its status, message and attributes
 * as {@code args}, every point event an instant ({@code "ph": "i"}); times in microseconds since
 * the boot, so writers line up as the timeline draws them. Opens in Perfetto's UI (ui.perfetto.dev)
 * and chrome://tracing.
 */
public final class TraceEvents {
  private TraceEvents() {}

  /** The trace of these boots, oldest first: one process each. */
  public static ObjectNode of(List<BootSection> sections, List<Timeline> timelines) {
    ObjectNode trace = Json.object();
    ArrayNode events = trace.putArray("traceEvents");
    for (int i = 0; i < sections.size(); i++) {
      BootSection section = sections.get(i);
      Timeline timeline = timelines.get(i);
      int pid = section.number;
      long shift = Math.min(0, timeline.rows.stream().mapToLong(r -> raw(r.at())).min().orElse(0));
      meta(events, "process_name", pid, 0, "boot " + pid + ": " + section.verdict());
      meta(events, "process_sort_index", pid, 0, null).with("args").put("sort_index", pid);
      Map<String, Integer> threads = new LinkedHashMap<>();
      // the ends of the spans a bar is inside, by depth: bars come in tree order
      List<Long> enclosing = new java.util.ArrayList<>();
      for (Timeline.Bar bar : timeline.bars) {
        int tid = thread(events, threads, pid, bar.writer());
        long start = micros(bar.start(), shift);
        // one that never finished runs to the boot's last event, as the page draws it, but not
        // past the span it is in: events on one thread must nest
        long end = bar.end() != null ? micros(bar.end(), shift) : micros(last(timeline), shift);
        while (enclosing.size() > bar.depth()) {
          enclosing.remove(enclosing.size() - 1);
        }
        if (bar.end() == null && !enclosing.isEmpty()) {
          end = Math.min(end, enclosing.get(enclosing.size() - 1));
        }
        enclosing.add(Math.max(start, end));
        ObjectNode e = events.addObject();
        e.put("name", bar.name()).put("cat", bar.writer()).put("ph", "X");
        e.put("ts", start);
        e.put("dur", Math.max(0, end - start));
        e.put("pid", pid).put("tid", tid);
        ObjectNode args = e.putObject("args");
        args.put("status", bar.status());
        if (!bar.message().isEmpty()) {
          args.put("message", bar.message());
        }
        if (!bar.attributes().isEmpty()) {
          args.put("attributes", bar.attributes());
        }
      }
      for (Timeline.Row row : timeline.rows) {
        if (row.kind().equals("start") || row.kind().equals("end")) {
          continue;
        }
        boolean milestone = row.kind().equals("milestone");
        int tid = thread(events, threads, pid, milestone ? "boot milestones" : row.writer());
        ObjectNode e = events.addObject();
        e.put("name", milestone ? row.name() : row.kind() + ": " + row.name());
        e.put("cat", milestone ? "milestone" : row.writer()).put("ph", "i");
        e.put("s", "t").put("ts", micros(row.at(), shift)).put("pid", pid).put("tid", tid);
        ObjectNode args = e.putObject("args");
        if (row.status() != null) {
          args.put("status", row.status());
        }
        args.put("message", row.message());
      }
    }
    trace.put("displayTimeUnit", "ms");
    return trace;
  }

  private static ObjectNode meta(ArrayNode events, String name, int pid, int tid, String value) {
    ObjectNode e = events.addObject();
    e.put("name", name).put("ph", "M").put("pid", pid).put("tid", tid);
    if (value != null) {
      e.putObject("args").put("name", value);
    }
    return e;
  }

  /** The writer's thread in the boot's process, named the first time it is used. */
  private static int thread(
      ArrayNode events, Map<String, Integer> threads, int pid, String writer) {
    Integer tid = threads.get(writer);
    if (tid == null) {
      tid = threads.size() + 1;
      threads.put(writer, tid);
      meta(events, "thread_name", pid, tid, writer);
    }
    return tid;
  }

  private static Duration last(Timeline timeline) {
    return timeline.rows.stream()
        .map(Timeline.Row::at)
        .max(Duration::compareTo)
        .orElse(Duration.ZERO);
  }

  /**
   * Microseconds since the boot, moved by {@code shift} so that none is negative (firmware and
   * loader come before the kernel; Perfetto refuses a negative timestamp).
   */
  private static long micros(Duration d, long shift) {
    return Math.max(0, raw(d) - shift);
  }

  /** Microseconds, saturating: a damaged pool's times may lie centuries apart. */
  private static long raw(Duration d) {
    try {
      return d.toNanos() / 1000;
    } catch (ArithmeticException e) {
      return d.isNegative() ? Long.MIN_VALUE / 2 : Long.MAX_VALUE / 2;
    }
  }
}
