package dev.kvprov.inspect.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvprov.inspect.render.Style;
import dev.kvprov.inspect.render.TimelinePage;
import dev.kvprov.inspect.render.TraceEvents;
import dev.kvprov.inspect.spans.BootSection;
import dev.kvprov.inspect.spans.Timeline;
import dev.kvprov.inspect.text.Json;
import dev.kvprov.inspect.text.Text;
import dev.kvprov.kvp.IoErrors;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code kvp timeline}: every writer's spans and events on one clock, seconds since boot. Its model
 * is built in code ({@link CommandModels}).
 */
final class TimelineCommand implements Callable<Integer> {
  private CommandSpec spec;
  private final PoolOptions input = new PoolOptions();
  private boolean json;
  private Path html;
  private Path traceEvent;
  private final BootChoice boots = new BootChoice();
  private Instant bootTime;

  private TimelineCommand() {}

  static CommandSpec model() {
    TimelineCommand timeline = new TimelineCommand();
    timeline.spec =
        CommandModels.command(
            timeline,
            new String[] {
              "Every writer's events on one clock since boot; --html draws it.",
              "",
              "Every span's start and end and every point event (kvprov's events and logs,",
              "cloud-init's and azure-init's events, the PROVISIONING_REPORT), merged by",
              "time. The boot time comes from --boot-time, else kvprov's records, else",
              "cloud-init's keys; the first line says which, or that it is unknown and",
              "times count from the first event. --html FILE writes one self-contained",
              "waterfall page (inline SVG, nothing fetched) to attach to a ticket. On a",
              "terminal long rows wrap at words under the name; a pipe or a file gets each",
              "row on one line."
            },
            "",
            "",
            "Examples:",
            "  kvp timeline",
            "  kvp timeline --root /mnt/rescued-disk --html boot.html",
            "  kvp timeline --file pool1.kvp --boot-time 2026-11-22T04:39:15Z --json");
    timeline.spec.addMixin("input", CommandModels.poolOptions(timeline.spec, timeline.input));
    timeline.spec.addOption(
        CommandModels.flag("--json", (Boolean j) -> timeline.json = j)
            .description(
                "{boot: {time, source, origin}, rows: [{t_s, time, writer, kind, name, status,"
                    + " message, duration_s}], undated}")
            .build());
    timeline.spec.addOption(
        OptionSpec.builder("--html")
            .paramLabel("FILE")
            .type(Path.class)
            .setter(CommandModels.setter((Path f) -> timeline.html = f))
            .description(
                "Write a self-contained waterfall page to FILE instead of the text timeline.")
            .build());
    timeline.spec.addOption(
        OptionSpec.builder("--trace-event")
            .paramLabel("FILE")
            .type(Path.class)
            .setter(CommandModels.setter((Path f) -> timeline.traceEvent = f))
            .description(
                "Write Chrome/Perfetto trace events (JSON) to FILE, open it in ui.perfetto.dev;"
                    + " says where, instead of the text timeline.")
            .build());
    timeline.spec.addMixin("boots", CommandModels.bootChoice(timeline.spec, timeline.boots));
    timeline.spec.addOption(
        OptionSpec.builder("--boot-time")
            .paramLabel("T")
            .type(Instant.class)
            .converters(new InstantConverter())
            .setter(CommandModels.setter((Instant t) -> timeline.bootTime = t))
            .description(
                "When the boot began, RFC 3339 or epoch seconds: overrides the pool's clues.")
            .build());
    return CommandModels.withStandardHelp(timeline.spec);
  }

  @Override
  public Integer call() {
    List<BootSection> all = PoolReading.boots(input, spec);
    if (all == null) {
      return ExitCode.IO.code;
    }
    List<BootSection> sections = boots.of(all);
    if (sections.size() > 1 && bootTime != null) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--boot-time is one boot's: choose it with --boot N");
    }
    PrintWriter out = spec.commandLine().getOut();
    boolean headed = sections.size() > 1;
    List<TimelinePage.Section> pages = new ArrayList<>();
    List<Timeline> timelines = new ArrayList<>();
    ArrayNode bootsJson = Json.array();
    int spans = 0;
    int rows = 0;
    for (BootSection section : sections) {
      Timeline timeline = section.timeline(bootTime);
      timelines.add(timeline);
      String heading =
          headed ? section.title(all.size()) + " (" + section.source.name() + ")" : null;
      pages.add(
          new TimelinePage.Section(
              heading, headed ? section.title(all.size()) : null, section.verdict(), timeline));
      spans += timeline.bars.size();
      rows += timeline.rows.size();
      if (json && headed) {
        ObjectNode boot = toJson(timeline);
        boot.put("number", section.number).put("file", section.source.name());
        boot.put("verdict", section.verdict());
        bootsJson.add(boot);
      } else if (json) {
        out.println(Json.write(toJson(timeline)));
      } else if (html == null && traceEvent == null) {
        if (headed) {
          out.println(section.header(all.size()));
        }
        print(timeline, Style.columns(false), out);
      }
    }
    if (json && headed) {
      out.println(Json.write(Json.object().set("boots", bootsJson)));
    }
    if (html != null) {
      try {
        Files.writeString(html, TimelinePage.render(pages, input.describe()), UTF_8);
      } catch (IOException e) {
        spec.commandLine()
            .getErr()
            .println("kvp timeline: cannot write " + html + ": " + IoErrors.reason(e));
        return ExitCode.IO.code;
      }
    }
    if (traceEvent != null) {
      try {
        Files.writeString(traceEvent, Json.write(TraceEvents.of(sections, timelines)), UTF_8);
      } catch (IOException e) {
        spec.commandLine()
            .getErr()
            .println("kvp timeline: cannot write " + traceEvent + ": " + IoErrors.reason(e));
        return ExitCode.IO.code;
      }
    }
    if (traceEvent != null && html == null && !json) {
      // the file is what was asked for: where it went, not the whole text timeline as well
      out.printf(
          "wrote %s: %d spans%s%n",
          Text.printable(traceEvent.toString()),
          spans,
          headed ? ", " + sections.size() + " boots" : "");
    }
    if (html != null && !json) {
      out.printf(
          "wrote %s: %d spans, %d rows%s%n",
          Text.printable(html.toString()),
          spans,
          rows,
          headed ? ", " + sections.size() + " boots" : "");
    }
    return ExitCode.OK.code;
  }

  private void print(Timeline timeline, int columns, PrintWriter out) {
    out.println(TimelinePage.bootLine(timeline.boot));
    if (timeline.rows.isEmpty()) {
      out.println("no timed events in " + Text.printable(input.describe()));
    }
    int timeWidth = 0;
    int writerWidth = 0;
    int kindWidth = 0;
    for (Timeline.Row row : timeline.rows) {
      timeWidth = Math.max(timeWidth, seconds(row).length());
      writerWidth = Math.max(writerWidth, row.writer().length());
      kindWidth = Math.max(kindWidth, Math.min(row.kind().length(), 14));
    }
    for (Timeline.Row row : timeline.rows) {
      // padded by hand, not String.format: a big pool's timeline has a row per record
      String head =
          "  "
              + Text.padLeft(seconds(row), timeWidth)
              + "  "
              + Text.padRight(Text.printable(row.writer()), writerWidth)
              + "  "
              + Text.padRight(Text.printable(row.kind()), kindWidth)
              + "  ";
      boolean span = row.kind().equals("start") || row.kind().equals("end");
      StringBuilder line = new StringBuilder(Text.printable(row.name()));
      if (row.duration() != null) {
        line.append("  ").append(seconds(row.duration(), ""));
      }
      if (row.kind().equals("start") && "unfinished".equals(row.status())) {
        line.append("  NEVER FINISHED");
      } else if (row.kind().equals("end") && "error".equals(row.status())) {
        line.append("  FAILED");
      } else if (!span && "error".equals(row.status())) {
        line.append("  ERROR");
      }
      if (!span && !row.message().isEmpty()) {
        line.append(": ").append(Text.printable(row.message()));
      }
      // wrapped, never cut: a report's reason, a failure's message is what the reader came for
      Text.hang(head, line.toString(), columns, 4).forEach(out::println);
      if (row.kind().equals("end") && !row.message().isEmpty()) {
        Text.hang(" ".repeat(head.length()), Text.printable(row.message()), columns, 4)
            .forEach(out::println);
      }
    }
    if (timeline.undated > 0) {
      out.println(timeline.undated + " spans or events without a readable time left out");
    }
  }

  private static String seconds(Timeline.Row row) {
    return seconds(row.at(), "+");
  }

  /**
   * Seconds to the millisecond, as {@code %+.3f} wrote them: a time before the boot keeps its minus
   * sign even when it rounds to {@code 0.000}.
   */
  static String seconds(java.time.Duration d, String plus) {
    return (d.isNegative() ? "-" : plus) + Text.secondsValue(d.abs()) + "s";
  }

  private static ObjectNode toJson(Timeline timeline) {
    ObjectNode root = Json.object();
    ObjectNode boot = root.putObject("boot");
    boot.put("time", text(timeline.boot.time()));
    boot.put("source", timeline.boot.source().token());
    boot.put("origin", text(timeline.boot.origin()));
    ArrayNode rows = root.putArray("rows");
    for (Timeline.Row row : timeline.rows) {
      ObjectNode r = rows.addObject();
      r.put("t_s", Timeline.seconds(row.at()));
      r.put("time", text(row.time()));
      r.put("writer", row.writer());
      r.put("kind", row.kind());
      r.put("name", row.name());
      r.put("status", row.status());
      r.put("message", row.message());
      if (row.duration() == null) {
        r.putNull("duration_s");
      } else {
        r.put("duration_s", Timeline.seconds(row.duration()));
      }
    }
    root.put("undated", timeline.undated);
    return root;
  }

  private static String text(Instant instant) {
    return instant == null ? null : instant.toString();
  }
}
