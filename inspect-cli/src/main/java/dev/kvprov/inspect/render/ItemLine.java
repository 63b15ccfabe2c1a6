package dev.kvprov.inspect.render;

import dev.kvprov.inspect.text.Text;
import dev.kvprov.inspect.writers.Event;
import dev.kvprov.inspect.writers.Item;
import dev.kvprov.inspect.writers.Writer;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * An item as a person reads it in {@code kvp list} and {@code watch}: when (since boot, when its
 * writer tells, and the time of day in UTC), level, writer, name, and what happened, with the error
 * text of a failure. Keys and raw values are {@code list --raw}'s.
 *
 * <pre>
 *    +1.072s  04:47:47.130  ERROR  kvprov      imds.attempt FAILED: IMDS answered HTTP 503
 * </pre>
 *
 * <p>Within a width, the words that do not fit go on continuation lines under the name; without one
 * (not a terminal, {@code --wide}), an item is one line, never cut.
 */
public final class ItemLine {
  private static final DateTimeFormatter DAY =
      DateTimeFormatter.ofPattern("yyyy-MM-dd", Locale.ROOT).withZone(ZoneOffset.UTC);

  /** The columns before the name: since boot (days of seconds fit), time, level, writer. */
  private static final int SINCE_BOOT = 11;

  private static final int TIME = 12;
  private static final int LEVEL = 5;
  private static final int WRITER = 10;
  public static final int INDENT = SINCE_BOOT + 2 + TIME + 2 + LEVEL + 2 + WRITER + 2;

  /** Fewer columns than this for the text, and continuation lines start further left. */
  private static final int NARROWEST_TEXT = 24;

  private ItemLine() {}

  /**
   * The day an item happened, UTC, for a {@code -- 2026-11-22} line when it changes; null when the
   * item has no time.
   */
  public static String day(Optional<Event> event) {
    return day(instant(event));
  }

  /** {@link #day(Optional)} of an item's time, already read ({@link #instant}); null for none. */
  public static String day(Instant at) {
    if (at == null) {
      return null;
    }
    long days = Math.floorDiv(at.getEpochSecond(), 86_400);
    if (days < FIRST_FAST_DAY || days > LAST_FAST_DAY) {
      return DAY.format(at); // years before 1 or after 9999 as the pattern writes them
    }
    // a big pool has a line per item: by hand, not through the formatter
    java.time.LocalDate date = java.time.LocalDate.ofEpochDay(days);
    char[] c = new char[10];
    digits(c, 0, date.getYear(), 4);
    c[4] = '-';
    digits(c, 5, date.getMonthValue(), 2);
    c[7] = '-';
    digits(c, 8, date.getDayOfMonth(), 2);
    return new String(c);
  }

  /** The item's time, read once for all the columns that show it; null when it has none. */
  public static Instant instant(Optional<Event> event) {
    return event.flatMap(e -> e.times().instant()).orElse(null);
  }

  /** Days since 1970 of 0001-01-01 and 9999-12-31: the years written with four digits. */
  private static final long FIRST_FAST_DAY = java.time.LocalDate.of(1, 1, 1).toEpochDay();

  private static final long LAST_FAST_DAY = java.time.LocalDate.of(9999, 12, 31).toEpochDay();

  private static void digits(char[] into, int at, int value, int width) {
    for (int i = at + width - 1; i >= at; i--) {
      into[i] = (char) ('0' + value % 10);
      value /= 10;
    }
  }

  /**
   * The item's lines.
   *
   * @param width the columns to fit, or {@link Integer#MAX_VALUE} for one line whatever its length
   */
  public static List<String> lines(Item item, Optional<Event> event, int width, Style style) {
    return lines(item, event, instant(event), width, style);
  }

  /** {@link #lines(Item, Optional, int, Style)} with the item's time already read. */
  public static List<String> lines(
      Item item, Optional<Event> event, Instant at, int width, Style style) {
    Writer writer = item.writer();
    String level = event.map(Event::severity).orElse("");
    String head =
        Text.padLeft(sinceBoot(item, event, at, writer), SINCE_BOOT)
            + "  "
            + Text.padRight(time(at), TIME)
            + "  "
            + Text.padRight(level, LEVEL)
            + "  "
            + Text.padRight(writer.label(), WRITER)
            + "  ";
    String text = Text.printable(what(item, event));
    List<String> lines = new ArrayList<>();
    List<String> problems = item.problems().stream().map(p -> "! " + Text.printable(p)).toList();
    if (width == Integer.MAX_VALUE) {
      lines.add(head + text);
      problems.forEach(p -> lines.add(" ".repeat(INDENT) + p));
    } else {
      // kvp's one wrapping rule (tree, timeline and report wrap the same way)
      lines.addAll(Text.hang(head, text, width, 4));
      boolean narrow = width - INDENT < NARROWEST_TEXT;
      int indent = narrow ? 4 : INDENT;
      String margin = " ".repeat(indent);
      int rest = Math.max(width - indent, 1);
      for (String p : problems) {
        Text.wrap(p, rest, rest).forEach(w -> lines.add(margin + w));
      }
    }
    boolean failed = level.equals("ERROR") || !item.problems().isEmpty();
    if (failed || level.equals("WARN")) {
      for (int i = 0; i < lines.size(); i++) {
        lines.set(i, failed ? style.error(lines.get(i)) : style.warn(lines.get(i)));
      }
    }
    return lines;
  }

  /** Seconds since boot, when the item or its writer says when the boot was. */
  private static String sinceBoot(Item item, Optional<Event> event, Instant time, Writer writer) {
    Optional<Duration> sinceBoot = event.flatMap(e -> e.times().sinceBoot());
    if (sinceBoot.isPresent()) {
      return "+" + Text.secondsValue(sinceBoot.get()) + "s";
    }
    Long boot = writer.reader().origin(item).bootEpoch();
    if (time != null && boot != null) {
      return Text.signedSeconds(Duration.between(Instant.ofEpochSecond(boot), time), 0);
    }
    return "";
  }

  static String time(Instant at) {
    if (at == null) {
      return "";
    }
    // HH:mm:ss.SSS in UTC, by hand: the formatter was a tenth of a big list's decoding
    int second = (int) Math.floorMod(at.getEpochSecond(), 86_400L);
    char[] c = new char[12];
    digits(c, 0, second / 3600, 2);
    c[2] = ':';
    digits(c, 3, second / 60 % 60, 2);
    c[5] = ':';
    digits(c, 6, second % 60, 2);
    c[8] = '.';
    digits(c, 9, at.getNano() / 1_000_000, 3);
    return new String(c);
  }

  /**
   * What happened, in words: the name, then what became of it — {@code FAILED: why}, {@code
   * started}, {@code ok} — or the message; an item no writer reads is its key and value.
   */
  static String what(Item item, Optional<Event> read) {
    if (read.isEmpty()) {
      if (item.key().isEmpty()) {
        return "(no record)";
      }
      return item.key() + " = " + item.value();
    }
    Event event = read.get();
    String name = event.name().orElse("");
    String type = event.kind();
    String status = event.status().orElse("").toLowerCase(Locale.ROOT);
    String message = event.message().orElse("");
    if (message.isEmpty() && event.attributes().containsKey("event")) {
      message = event.attributes().get("event"); // a kvprov span event: what it says
    }
    StringBuilder b = new StringBuilder(name.isEmpty() ? item.key() : name);
    boolean failed = status.equals("error") || status.equals("fail");
    if (failed) {
      b.append(" FAILED");
      if (!message.isEmpty() && !message.equals(name)) {
        b.append(": ").append(message);
      }
      return b.toString();
    }
    switch (type) {
      case "start" -> b.append(" started");
      case "end", "finish", "span" -> {
        // kvprov's OpenTelemetry status of a span that did not fail is "unset": it ended well
        boolean ok = status.isEmpty() || status.equals("success") || status.equals("unset");
        // one that did not fail but warned (kvprov: an attempt tried again) says so
        boolean warned = ok && !message.isEmpty() && event.level().orElse("").equals("WARN");
        b.append(" ").append(warned ? "warning" : ok ? "ok" : status);
        event
            .times()
            .length()
            .ifPresent(length -> b.append(" ").append(Text.secondsValue(length)).append("s"));
      }
      case "report" -> b.append(" ").append(status);
      case "event", "log", "" -> {}
      default -> b.append(" (").append(type).append(")");
    }
    if (!message.isEmpty() && !message.equals(name)) {
      b.append(": ").append(message);
    }
    return b.toString();
  }
}
