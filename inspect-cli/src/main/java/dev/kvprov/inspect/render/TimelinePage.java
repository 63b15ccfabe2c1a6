package dev.kvprov.inspect.render;

import dev.kvprov.inspect.spans.Timeline;
import dev.kvprov.inspect.writers.Writers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/**
 * {@code kvp timeline --html}: one self-contained page to attach to a ticket — an inline SVG
 * waterfall and the rows as a table, inline CSS, nothing fetched (no script, font or image). Every
 * text from the pool is escaped, and the page is well-formed XML after its doctype line. Huge pools
 * are bounded: at most {@link #MAX_BARS} spans, {@link #MAX_MARKERS} point events and {@link
 * #MAX_TABLE_ROWS} rows, and the page says what it left out.
 */
public final class TimelinePage {
  public static final int MAX_BARS = 1000;
  static final int MAX_MARKERS = 2000;
  static final int MAX_TABLE_ROWS = 2000;

  private static final int LABEL_WIDTH = 380;
  private static final int PLOT_WIDTH = 820;
  private static final int WIDTH = LABEL_WIDTH + PLOT_WIDTH + 20;
  private static final int ROW = 16;
  private static final int AXIS = 28;
  private static final double CHAR_WIDTH = 6.7; // of the 11px monospace labels
  private static final String FAILED = "#d62728";

  /** A span that did not fail but warned: kvprov's attempt that failed and was tried again. */
  private static final String WARNED = "#f1b82d";

  /**
   * Points before the first span are left out of the drawing when the spans would get less than
   * this share of the axis. The demo's first run starts the agent's process 100 s before its run,
   * the build in between; a later run 3 s before it, the demo's own set-up.
   */
  private static final double LEAD_SHARE = 0.5;

  /** Rows a milestone's label may move down to before it is left to its tooltip. */
  private static final int LABEL_ROWS = 4;

  /** A milestone's label is cut here (its tooltip has it whole): a pool may name one at length. */
  private static final int LABEL_CHARS = 24;

  private static final String CSS =
      """
      body { font: 13px sans-serif; margin: 16px; color: #222; }
      h1 { font-size: 18px; }
      code, table, svg text { font-family: monospace; }
      svg text { font-size: 11px; fill: #222; }
      svg .tick { stroke: #ddd; }
      svg .failed { fill: #d62728; }
      svg .warned { fill: #8a5a00; }
      svg .mark { stroke: #bbb; stroke-dasharray: 2 3; }
      .legend span { display: inline-block; width: 10px; height: 10px; margin: 0 4px 0 12px; }
      table { border-collapse: collapse; font-size: 12px; margin-top: 16px; }
      th, td { text-align: left; padding: 1px 8px; vertical-align: top; }
      td.t { text-align: right; }
      td.m { white-space: pre-wrap; }
      tr.error td { color: #d62728; }
      tr.warned td { color: #8a5a00; }
      tr.unfinished td { font-style: italic; }
      .note { color: #a33; }
      .verdict { font-size: 16px; font-weight: bold; padding: 8px 12px; border-radius: 4px; }
      .verdicts .verdict { font-size: 14px; margin: 4px 0; }
      .verdict a { color: inherit; }
      .verdict .on-the-way { font-weight: normal; }
      .verdict.ok { background: #e3f4e1; color: #1e6b1a; }
      .verdict.bad { background: #fbe3e3; color: #a11d1d; }
      h2 { font-size: 15px; margin-top: 28px; border-top: 1px solid #ccc; padding-top: 8px; }
      """;

  private final Timeline timeline;
  private final StringBuilder out = new StringBuilder();
  private double t0;
  private double scale;

  private TimelinePage(Timeline timeline) {
    this.timeline = timeline;
  }

  /**
   * One boot's part of the page.
   *
   * @param heading its heading, or null on a page of one boot
   * @param title its line in the banner ({@code boot 2 of 3, time: verdict}), or null on a page of
   *     one boot
   * @param verdict {@code OK}, {@code FAILED: reason}, {@code NEVER FINISHED: step}, …
   */
  public record Section(String heading, String title, String verdict, Timeline timeline) {}

  /**
   * The page for every boot read from {@code pool}: every boot's verdict first, each a link to its
   * boot, then each boot on its own axis (zoomed to it), oldest first.
   */
  public static String render(List<Section> sections, String pool) {
    StringBuilder out = new StringBuilder();
    out.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n");
    out.append("<title>kvp timeline: ").append(escape(pool)).append("</title>\n");
    out.append("<style>\n").append(CSS).append("</style>\n</head>\n<body>\n");
    out.append("<h1>kvp timeline</h1>\n");
    if (sections.size() == 1 && sections.get(0).verdict() != null) {
      verdict(out, sections.get(0), sections.get(0).verdict(), null);
    } else if (sections.size() > 1) {
      // Every boot's: an earlier boot that failed is often why the reader came, even when the
      // latest went well.
      out.append("<div class=\"verdicts\">\n");
      for (int i = 0; i < sections.size(); i++) {
        verdict(out, sections.get(i), sections.get(i).title(), "#boot-" + (i + 1));
      }
      out.append("</div>\n");
    }
    out.append("<p>pool <code>").append(escape(pool)).append("</code></p>\n");
    for (int i = 0; i < sections.size(); i++) {
      Section section = sections.get(i);
      out.append("<section id=\"boot-").append(i + 1).append("\">\n");
      if (section.heading() != null) {
        out.append("<h2>").append(escape(section.heading())).append("</h2>\n");
      }
      TimelinePage page = new TimelinePage(section.timeline());
      page.boot();
      out.append(page.out).append("</section>\n");
    }
    out.append("</body>\n</html>\n");
    return out.toString();
  }

  /** A boot's verdict in the banner, green or red, with what warned on the way to it. */
  private static void verdict(StringBuilder out, Section section, String text, String link) {
    out.append("<p class=\"verdict ")
        .append(section.verdict().equals("OK") ? "ok" : "bad")
        .append("\">");
    if (link != null) {
      out.append("<a href=\"").append(link).append("\">");
    }
    out.append(escape(text));
    if (link != null) {
      out.append("</a>");
    }
    long warned = section.timeline().bars.stream().filter(TimelinePage::warned).count();
    if (warned > 0) {
      out.append("<span class=\"on-the-way\"> — ")
          .append(warned)
          .append(warned == 1 ? " warning" : " warnings")
          .append(" on the way (amber below)</span>");
    }
    out.append("</p>\n");
  }

  /** A span that did not fail but warned (kvprov: an attempt that failed and was tried again). */
  private static boolean warned(Timeline.Bar bar) {
    return bar.status().equals("ok") && !bar.message().isEmpty();
  }

  private void boot() {
    List<Timeline.Row> points =
        timeline.rows.stream()
            .filter(r -> !r.kind().equals("start") && !r.kind().equals("end"))
            .toList();
    List<Timeline.Bar> bars = timeline.bars.subList(0, Math.min(MAX_BARS, timeline.bars.size()));
    List<Timeline.Row> markers = points.subList(0, Math.min(MAX_MARKERS, points.size()));
    out.append("<p>").append(escape(bootLine(timeline.boot))).append("</p>\n");
    out.append("<p>")
        .append(timeline.bars.size())
        .append(" spans, ")
        .append(points.size())
        .append(" point events.</p>\n");
    note(
        timeline.undated > 0,
        timeline.undated + " spans or events without a readable time left out.");
    note(
        bars.size() < timeline.bars.size(),
        "Only the first " + bars.size() + " of " + timeline.bars.size() + " spans are drawn.");
    note(
        markers.size() < points.size(),
        "Only the first " + markers.size() + " of " + points.size() + " point events are drawn.");
    if (timeline.rows.isEmpty()) {
      out.append("<p>No timed events in this pool.</p>\n");
      return;
    }
    legend();
    waterfall(bars, markers);
    table();
  }

  private void note(boolean when, String text) {
    if (when) {
      out.append("<p class=\"note\">").append(escape(text)).append("</p>\n");
    }
  }

  private void legend() {
    out.append("<p class=\"legend\">");
    for (String writer : writers(timeline.rows)) {
      out.append("<span style=\"background:")
          .append(colour(writer))
          .append("\"></span>")
          .append(escape(writer));
    }
    out.append("<span style=\"background:")
        .append(WARNED)
        .append("\"></span>warned: tried again, or went on after a warning")
        .append("<span style=\"background:")
        .append(FAILED)
        .append("\"></span>failed <span style=\"border:1px solid #888\"></span>never finished")
        .append("</p>\n");
  }

  /**
   * Where the drawing starts and ends, and the points it leaves out before its start.
   *
   * @param leftOut points before {@code from}, listed in a note above the drawing
   */
  private record Axis(double from, double to, Duration start, List<Timeline.Row> leftOut) {}

  /**
   * The axis ends at the last event, where a span that never finished stops too. It starts at the
   * boot, when the first event comes within the first fifth of the time since it (or before it: the
   * kernel's milestone and the firmware's). Otherwise at the first event, unless the points before
   * the first span would leave the spans less than {@link #LEAD_SHARE} of the axis (a demo, whose
   * agent process started long before its run): then at the first span, and the points before it
   * are said, not drawn.
   */
  private Axis axis(List<Timeline.Bar> bars) {
    double first = Double.POSITIVE_INFINITY;
    double last = Double.NEGATIVE_INFINITY;
    for (Timeline.Row row : timeline.rows) {
      first = Math.min(first, Timeline.seconds(row.at()));
      last = Math.max(last, Timeline.seconds(row.at()));
    }
    if (first <= 0 || first < last * 0.2) {
      return new Axis(Math.min(first, 0), last, Duration.ZERO, List.of());
    }
    Duration spans = null;
    for (Timeline.Bar bar : bars) {
      spans = spans == null || bar.start().compareTo(spans) < 0 ? bar.start() : spans;
    }
    if (spans == null || last - Timeline.seconds(spans) >= LEAD_SHARE * (last - first)) {
      return new Axis(first, last, Duration.ZERO, List.of());
    }
    Duration start = spans;
    List<Timeline.Row> before =
        timeline.rows.stream().filter(r -> r.at().compareTo(start) < 0).toList();
    return new Axis(Timeline.seconds(start), last, start, before);
  }

  /** What the axis left out before its start: each point's kind, name and how long before. */
  private void leftOut(Axis axis) {
    if (axis.leftOut().isEmpty()) {
      return;
    }
    StringBuilder text =
        new StringBuilder("The drawing starts at the first span, ")
            .append(seconds(axis.start()))
            .append("; left out of the drawing, so that the spans are not a sliver: ");
    int listed = Math.min(axis.leftOut().size(), 5);
    for (int i = 0; i < listed; i++) {
      Timeline.Row row = axis.leftOut().get(i);
      text.append(i == 0 ? "" : ", ")
          .append(row.kind())
          .append(' ')
          .append(shorten(row.name(), 60))
          .append(" at ")
          .append(seconds(row.at()))
          .append(
              String.format(
                  Locale.ROOT, " (%.3f s before)", Timeline.seconds(axis.start().minus(row.at()))));
    }
    if (listed < axis.leftOut().size()) {
      text.append(" and ").append(axis.leftOut().size() - listed).append(" more");
    }
    note(true, text.append(". The table lists everything.").toString());
  }

  private void waterfall(List<Timeline.Bar> bars, List<Timeline.Row> all) {
    Axis axis = axis(bars);
    leftOut(axis);
    double first = axis.from();
    double last = axis.to();
    t0 = first;
    scale = PLOT_WIDTH / Math.max(last - first, 1e-3);
    List<Timeline.Row> markers =
        all.stream().filter(r -> Timeline.seconds(r.at()) >= first).toList();
    List<Timeline.Row> milestones =
        markers.stream().filter(r -> r.kind().equals("milestone")).toList();
    int[] labelRow = labelRows(milestones);
    int milestoneRows = 1;
    for (int row : labelRow) {
      milestoneRows = Math.max(milestoneRows, row + 1);
    }
    // the boot's milestones in a lane of their own (a row per label that would overlap), above
    // the writers' events
    List<String> lanes = new ArrayList<>();
    List<Integer> laneTops = new ArrayList<>();
    int top = AXIS;
    if (!milestones.isEmpty()) {
      lanes.add(MILESTONES);
      laneTops.add(top);
      top += milestoneRows * ROW;
    }
    for (String writer :
        writers(markers.stream().filter(r -> !r.kind().equals("milestone")).toList())) {
      lanes.add(writer);
      laneTops.add(top);
      top += ROW;
    }
    int barsTop = top + (lanes.isEmpty() ? 0 : 6);
    int height = barsTop + bars.size() * ROW + 8;
    out.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"")
        .append(WIDTH)
        .append("\" height=\"")
        .append(height)
        .append("\" viewBox=\"0 0 ")
        .append(WIDTH)
        .append(' ')
        .append(height)
        .append("\">\n");
    out.append(
        "<defs><pattern id=\"unfinished\" width=\"6\" height=\"6\""
            + " patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
            + "<rect width=\"3\" height=\"6\" fill=\"#999\"/></pattern></defs>\n");
    ticks(first, last, height);
    for (int lane = 0; lane < lanes.size(); lane++) {
      text(
          8,
          laneTops.get(lane) + 12,
          "start",
          "",
          lanes.get(lane).equals(MILESTONES) ? "boot milestones" : lanes.get(lane) + " events");
    }
    int milestone = 0;
    for (Timeline.Row point : markers) {
      boolean isMilestone = point.kind().equals("milestone");
      int labelled = isMilestone ? labelRow[milestone++] : 0;
      int row = Math.max(labelled, 0);
      double x = x(point.at());
      double y = laneTops.get(lanes.indexOf(lane(point))) + row * ROW + 8;
      out.append("<g class=\"")
          .append(isMilestone ? "point milestone" : "point")
          .append("\"><title>")
          .append(escape(seconds(point.at()) + "  " + point.kind() + "  " + point.name()))
          .append(escape(point.message().isEmpty() ? "" : "\n" + point.message()))
          .append("</title>");
      if (isMilestone) {
        // a faint line down through the spans: what ran before and after it
        out.append("<line class=\"mark\" x1=\"")
            .append(number(x))
            .append("\" y1=\"")
            .append(number(y + 5))
            .append("\" x2=\"")
            .append(number(x))
            .append("\" y2=\"")
            .append(height)
            .append("\"/>");
      }
      out.append("<path d=\"M")
          .append(number(x))
          .append(' ')
          .append(number(y - 5))
          .append(" l4 5 l-4 5 l-4 -5 z\" fill=\"")
          .append("error".equals(point.status()) ? FAILED : colour(point.writer()))
          .append("\"/>");
      if (isMilestone && labelled >= 0) {
        String label = label(point);
        boolean right = labelOnTheRight(x, label);
        text(right ? x + 6 : x - 6, (int) y + 4, right ? "start" : "end", "", label);
      }
      out.append("</g>\n");
    }
    for (int i = 0; i < bars.size(); i++) {
      bar(bars.get(i), barsTop + i * ROW);
    }
    out.append("</svg>\n");
  }

  /**
   * Which row of the milestones' lane each milestone is drawn in, so that no two labels overlap:
   * the first row where its label fits after the labels already there; -1 (no label, its tooltip
   * still names it) when it fits in none of {@link #LABEL_ROWS}.
   */
  private int[] labelRows(List<Timeline.Row> milestones) {
    int[] rows = new int[milestones.size()];
    double[] freeFrom = new double[LABEL_ROWS];
    java.util.Arrays.fill(freeFrom, Double.NEGATIVE_INFINITY);
    for (int i = 0; i < milestones.size(); i++) {
      String label = label(milestones.get(i));
      double x = x(milestones.get(i).at());
      double width = label.codePointCount(0, label.length()) * CHAR_WIDTH;
      // the diamond and its label, whichever side the label goes
      double from = labelOnTheRight(x, label) ? x - 5 : x - 6 - width;
      double to = labelOnTheRight(x, label) ? x + 6 + width : x + 5;
      rows[i] = -1;
      for (int row = 0; row < LABEL_ROWS; row++) {
        if (freeFrom[row] <= from) {
          rows[i] = row;
          freeFrom[row] = to + 6;
          break;
        }
      }
    }
    return rows;
  }

  private static String label(Timeline.Row milestone) {
    return shorten(milestone.name(), LABEL_CHARS);
  }

  /** Labels go right of their marker, unless that would run off the page. */
  private static boolean labelOnTheRight(double x, String name) {
    return x + 6 + name.codePointCount(0, name.length()) * CHAR_WIDTH <= WIDTH;
  }

  /** About eight ticks at a round step (1, 2 or 5 times a power of ten seconds). */
  private void ticks(double first, double last, int height) {
    double raw = Math.max(last - first, 1e-3) / 8;
    double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
    double step =
        magnitude
            * (raw <= magnitude ? 1 : raw <= 2 * magnitude ? 2 : raw <= 5 * magnitude ? 5 : 10);
    int decimals = (int) Math.max(0, -Math.floor(Math.log10(step)));
    // Counted, not summed: far from the boot (centuries, in a damaged pool) adding a step to t
    // could round back to t.
    double from = Math.ceil(first / step) * step;
    for (int i = 0; from + i * step <= last + step / 2; i++) {
      double t = from + i * step;
      double x = LABEL_WIDTH + (t - t0) * scale;
      if (x > WIDTH) {
        break;
      }
      out.append("<line class=\"tick\" x1=\"")
          .append(number(x))
          .append("\" y1=\"")
          .append(AXIS - 6)
          .append("\" x2=\"")
          .append(number(x))
          .append("\" y2=\"")
          .append(height)
          .append("\"/>\n");
      text(x, AXIS - 10, "middle", "", String.format(Locale.ROOT, "%." + decimals + "fs", t));
    }
  }

  private void bar(Timeline.Bar bar, int y) {
    boolean failed = bar.status().equals("error");
    boolean warned = warned(bar);
    boolean open = bar.end() == null;
    double x = x(bar.start());
    double width = Math.max(1, (open ? PLOT_WIDTH + LABEL_WIDTH - x : x(bar.end()) - x));
    String took =
        open
            ? "never finished"
            : String.format(Locale.ROOT, "%.3fs", Timeline.seconds(bar.end().minus(bar.start())));
    StringBuilder title = new StringBuilder(bar.name());
    title.append("\n").append(bar.writer()).append(", from ").append(seconds(bar.start()));
    if (!open) {
      title.append(" to ").append(seconds(bar.end()));
    }
    title.append(": ").append(failed ? "FAILED" : warned ? "warned, " + took : took);
    if (!bar.message().isEmpty()) {
      title.append("\n").append(bar.message());
    }
    if (!bar.attributes().isEmpty()) {
      title.append("\n").append(bar.attributes());
    }
    out.append("<g class=\"bar\"><title>").append(escape(title.toString())).append("</title>");
    out.append("<rect x=\"")
        .append(number(x))
        .append("\" y=\"")
        .append(y + 2)
        .append("\" width=\"")
        .append(number(width))
        .append("\" height=\"")
        .append(ROW - 4)
        .append("\" fill=\"")
        .append(
            open ? "url(#unfinished)" : failed ? FAILED : warned ? WARNED : colour(bar.writer()))
        .append("\" stroke=\"")
        .append(failed ? FAILED : warned ? WARNED : colour(bar.writer()))
        .append("\"/>");
    int indent = 8 + Math.min(bar.depth(), 12) * 10;
    int room = (int) ((LABEL_WIDTH - 100 - indent) / CHAR_WIDTH);
    String css = failed ? "failed" : warned ? "warned" : "";
    text(indent, y + 12, "start", css, shorten(bar.name(), room));
    text(
        LABEL_WIDTH - 8,
        y + 12,
        "end",
        css,
        failed ? "FAILED " + took : warned ? "warned " + took : took);
    out.append("</g>\n");
  }

  private void table() {
    List<Timeline.Row> rows =
        timeline.rows.subList(0, Math.min(MAX_TABLE_ROWS, timeline.rows.size()));
    // a span's attributes go on its start row
    java.util.Map<String, String> attributes = new java.util.HashMap<>();
    for (Timeline.Bar bar : timeline.bars) {
      attributes.putIfAbsent(bar.name() + "\n" + bar.start(), bar.attributes());
    }
    out.append("<table>\n<tr><th>t</th><th>writer</th><th>kind</th><th>name</th>")
        .append("<th>status</th><th>message</th><th>attributes</th></tr>\n");
    for (Timeline.Row row : rows) {
      String status = row.status() == null ? "" : row.status();
      String attrs =
          row.kind().equals("start")
              ? attributes.getOrDefault(row.name() + "\n" + row.at(), "")
              : "";
      // the end of a span that did not fail but warned: its message is the warning
      boolean warned = row.kind().equals("end") && status.equals("ok") && !row.message().isEmpty();
      out.append("<tr class=\"")
          .append(
              status.equals("error") || status.equals("unfinished")
                  ? status
                  : warned ? "warned" : "row")
          .append("\"><td class=\"t\">")
          .append(escape(seconds(row.at())))
          .append("</td><td>")
          .append(escape(row.writer()))
          .append("</td><td>")
          .append(escape(row.kind()))
          .append("</td><td>")
          .append(escape(row.name()))
          .append("</td><td>")
          .append(escape(status))
          .append("</td><td class=\"m\">")
          .append(escape(row.message()))
          .append("</td><td class=\"m\">")
          .append(escape(attrs))
          .append("</td></tr>\n");
    }
    out.append("</table>\n");
    if (rows.size() < timeline.rows.size()) {
      note(true, "Only the first " + rows.size() + " of " + timeline.rows.size() + " rows listed.");
    }
  }

  private void text(double x, int y, String anchor, String css, String text) {
    out.append("<text x=\"")
        .append(number(x))
        .append("\" y=\"")
        .append(y)
        .append("\" text-anchor=\"")
        .append(anchor)
        .append('"')
        .append(css.isEmpty() ? "" : " class=\"" + css + "\"")
        .append('>')
        .append(escape(text))
        .append("</text>");
  }

  private double x(Duration at) {
    return LABEL_WIDTH + (Timeline.seconds(at) - t0) * scale;
  }

  private static String seconds(Duration at) {
    return String.format(Locale.ROOT, "%+.3fs", Timeline.seconds(at));
  }

  private static String number(double value) {
    return String.format(Locale.ROOT, "%.1f", value);
  }

  private static final String MILESTONES = "\u0000milestones";

  /** The lane a point is drawn in: the milestones', or its writer's. */
  private static String lane(Timeline.Row point) {
    return point.kind().equals("milestone") ? MILESTONES : point.writer();
  }

  private static TreeSet<String> writers(List<Timeline.Row> rows) {
    TreeSet<String> writers = new TreeSet<>();
    rows.forEach(r -> writers.add(r.writer()));
    return writers;
  }

  private static String colour(String writer) {
    return Writers.named(writer).colour();
  }

  private static String shorten(String text, int codePoints) {
    if (text.codePointCount(0, text.length()) <= codePoints) {
      return text;
    }
    return text.substring(0, text.offsetByCodePoints(0, Math.max(codePoints - 1, 0))) + "…";
  }

  /** The header line: the boot time used and where it came from, or that it is unknown. */
  public static String bootLine(Timeline.Boot boot) {
    if (!boot.source().equals(Timeline.Source.NONE)) {
      return "boot " + boot.time() + " " + boot.source().description();
    }
    return boot.origin() == null
        ? "boot time unknown, and nothing in the pool has a time"
        : "boot time unknown: seconds since the first event, " + boot.origin();
  }

  /**
   * Text for XML and HTML, element content or attribute: the five markup characters as entities;
   * characters XML cannot hold at all (most controls, lone surrogates, U+FFFE and U+FFFF) as a
   * visible {@code \xHH} or U+FFFD, so that a hostile pool cannot break the page.
   */
  static String escape(String text) {
    StringBuilder b = new StringBuilder(text.length() + 16);
    for (int i = 0; i < text.length(); ) {
      int c = text.codePointAt(i);
      i += Character.charCount(c);
      switch (c) {
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '&' -> b.append("&amp;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&#39;");
        case '\t', '\n', '\r' -> b.append((char) c);
        default -> {
          if (c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == 0xFFFE || c == 0xFFFF) {
            b.append(String.format(Locale.ROOT, "\\x%02X", c));
          } else if (c >= Character.MIN_SURROGATE && c <= Character.MAX_SURROGATE) {
            b.append('\uFFFD');
          } else {
            b.appendCodePoint(c);
          }
        }
      }
    }
    return b.toString();
  }
}
