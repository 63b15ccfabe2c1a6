package dev.kvprov.inspect.writers;

import dev.kvprov.inspect.text.Text;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The key of one of azure-init's diagnostic records (its {@code libazureinit-kvp} crate's {@code
 * diagnostics} module; docs/kvp-format.md):
 *
 * <pre>
 * DIAG|agent|vm id|kind|name|event id|timestamp|encoding|result|duration|piece
 * </pre>
 *
 * <p>Two earlier revisions of that format are read too, since images were built with them: {@code
 * DIAG_V1|…} (the same fields, the duration in whole microseconds) and {@code AZURE_INIT_V1|…} (the
 * boot in epoch seconds after the agent, the duration in whole milliseconds). No field may hold a
 * {@code |}: the writer refuses one, so a split on it is exact.
 *
 * @param form which revision wrote it
 * @param agent the program and its version, as the caller named it ({@code azure-init/0.1.1})
 * @param bootEpoch the boot, seconds since the epoch ({@code AZURE_INIT_V1} only), or null
 * @param kind {@code start}, {@code finish} or {@code event}
 * @param eventId shared by an operation's start and finish
 * @param timestamp when the record was written, as written
 * @param encoding {@code none}, {@code gz+b64}, {@code zlib+b64} (or {@code b64}, earlier)
 * @param result {@code success}, {@code fail} or empty
 * @param duration the operation's length as written, in the form's unit, or empty
 * @param piece the piece's number, from 0: every record has one, a single piece too
 */
public record DiagKey(
    Form form,
    String agent,
    Long bootEpoch,
    String vmId,
    String kind,
    String name,
    String eventId,
    String timestamp,
    String encoding,
    String result,
    String duration,
    int piece) {

  /** The revisions of the grammar: their first field, field count and duration unit. */
  enum Form {
    DIAG("DIAG", 11, Unit.SECONDS),
    DIAG_V1("DIAG_V1", 11, Unit.MICROSECONDS),
    AZURE_INIT_V1("AZURE_INIT_V1", 12, Unit.MILLISECONDS);

    final String prefix;
    final int fields;
    final Unit unit;

    Form(String prefix, int fields, Unit unit) {
      this.prefix = prefix;
      this.fields = fields;
      this.unit = unit;
    }

    static Form of(String key) {
      for (Form form : values()) {
        if (key.startsWith(form.prefix + "|")) {
          return form;
        }
      }
      return null;
    }
  }

  enum Unit {
    SECONDS,
    MICROSECONDS,
    MILLISECONDS
  }

  static final List<String> KINDS = List.of("start", "finish", "event");

  /** The most pieces azure-init cuts a payload into (pieces 0 to 1022). */
  static final int MAX_PIECES = 1023;

  /**
   * Whether the key is one of these records' (of any revision): its prefix, and the grammar after
   * it. A key that only begins like one is another program's, shown as plain key/value.
   */
  static boolean owns(String key) {
    return Form.of(key) != null && parse(key, new ArrayList<>()).isPresent();
  }

  /**
   * The key read field by field, or a plain-words reason why it is not one in {@code problems} and
   * empty.
   */
  static Optional<DiagKey> parse(String key, List<String> problems) {
    Form form = Form.of(key);
    if (form == null) {
      return Optional.empty();
    }
    String[] f = key.split("\\|", -1);
    if (f.length != form.fields) {
      problems.add(
          "a "
              + form.prefix
              + " key has "
              + form.fields
              + " fields separated by |; this one has "
              + f.length);
      return Optional.empty();
    }
    int i = 1;
    String agent = f[i++];
    Long boot = null;
    if (form == Form.AZURE_INIT_V1) {
      boot = digits(f[i++], 12);
      if (boot == null) {
        problems.add("the boot field is not a number of seconds: " + Text.printable(f[i - 1]));
        return Optional.empty();
      }
    }
    String vmId = f[i++];
    String kind = f[i++];
    String name = f[i++];
    String eventId = f[i++];
    String timestamp = f[i++];
    String encoding = f[i++];
    String result = f[i++];
    String duration = f[i++];
    Long piece = digits(f[i], 4);
    if (!KINDS.contains(kind)) {
      problems.add("the kind is start, finish or event; not " + Text.printable(kind));
      return Optional.empty();
    }
    if (piece == null || piece >= MAX_PIECES) {
      problems.add(
          "the piece number is 0 to " + (MAX_PIECES - 1) + "; not " + Text.printable(f[i]));
      return Optional.empty();
    }
    return Optional.of(
        new DiagKey(
            form,
            agent,
            boot,
            vmId,
            kind,
            name,
            eventId,
            timestamp,
            encoding,
            result,
            duration,
            piece.intValue()));
  }

  /** The key of an item (its pieces' shared key, {@link #base}) read, or null. */
  public static DiagKey ofItem(String itemKey) {
    return parse(itemKey + "|0", new ArrayList<>()).orElse(null);
  }

  /** The key the pieces of one payload share: everything but the piece number. */
  static String base(String key) {
    return key.substring(0, key.lastIndexOf('|'));
  }

  boolean failed() {
    return result.equals("fail");
  }

  Instant time() {
    return SpanForest.time(timestamp);
  }

  /**
   * The duration in its form's unit; empty when absent or not a number ({@link #durationProblem}
   * says so). azure-init's own reader takes a decimal in exponent notation too ({@code 3.12e-1}).
   */
  Optional<Duration> length() {
    if (!NUMBER.matcher(duration).matches()) {
      return Optional.empty(); // absent, or not a number its writer's reader takes (no sign)
    }
    try {
      BigDecimal nanos =
          switch (form.unit) {
            case SECONDS -> new BigDecimal(duration).movePointRight(9);
            case MILLISECONDS -> new BigDecimal(duration).movePointRight(6);
            case MICROSECONDS -> new BigDecimal(duration).movePointRight(3);
          };
      if (nanos.signum() < 0 || nanos.compareTo(MAX_NANOS) > 0) {
        return Optional.empty(); // not a boot's: longer than thirty years
      }
      return Optional.of(Duration.ofNanos(nanos.longValue()));
    } catch (NumberFormatException | ArithmeticException e) {
      return Optional.empty();
    }
  }

  /** A duration written but not read, in plain words; empty when it reads or is absent. */
  Optional<String> durationProblem() {
    if (duration.isEmpty() || length().isPresent()) {
      return Optional.empty();
    }
    return Optional.of(
        "the duration is not a number of "
            + form.unit.name().toLowerCase(java.util.Locale.ROOT)
            + ": "
            + Text.printable(duration));
  }

  /** Digits with a fraction, an exponent or both, short enough that no reading is costly. */
  private static final java.util.regex.Pattern NUMBER =
      java.util.regex.Pattern.compile(
          "([0-9]{1,19}(\\.[0-9]{0,12})?|\\.[0-9]{1,12})([eE][+-]?[0-9]{1,3})?");

  private static final BigDecimal MAX_NANOS = BigDecimal.TEN.pow(18);

  /** Up to {@code max} ASCII digits as a number; null otherwise. */
  private static Long digits(String text, int max) {
    if (text.isEmpty() || text.length() > max) {
      return null;
    }
    for (int i = 0; i < text.length(); i++) {
      if (text.charAt(i) < '0' || text.charAt(i) > '9') {
        return null;
      }
    }
    return Long.parseLong(text);
  }
}
