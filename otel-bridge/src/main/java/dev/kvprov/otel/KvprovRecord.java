package dev.kvprov.otel;

import static java.util.Objects.requireNonNull;

import io.opentelemetry.api.common.Attributes;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * One logical kvprov record, before it is split into KVP records or after they are put back
 * together: what it is, how severe, whose VM, and its labelled fields and attributes. See {@link
 * KvpRecordFormat} for how it is written.
 *
 * @param kind start or end of a span, a span event, a log record, or the budget's drop count
 * @param level severity, part of the key so that {@code strings} and host tools can filter on it
 * @param vmId the VM id, or {@code unknown}
 * @param recordId unique per boot, ignoring case: lower-case hex, digits, dots and letters
 * @param fields labelled texts in writing order (labels are letters only, e.g. {@code Start})
 * @param attributes the span's, event's or log's attributes, secrets already removed
 */
public record KvprovRecord(
    Kind kind,
    Level level,
    String vmId,
    String recordId,
    List<Field> fields,
    Attributes attributes) {

  /**
   * Whether a text is 1 to {@code max} chars of digits, lower-case letters and {@code also}: record
   * ids ({@code [0-9a-z.]{1,40}}) and VM ids ({@code [0-9a-z-]{1,36}}). By hand, as {@link
   * #isLabel}: checked for every record of a big pool.
   */
  private static boolean isId(String text, int max, char also) {
    if (text.isEmpty() || text.length() > max) {
      return false;
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c == also)) {
        return false;
      }
    }
    return true;
  }

  /** Whether a text is a field label: ASCII letters only ({@code [A-Za-z]+}). */
  private static boolean isLabel(String text) {
    if (text.isEmpty()) {
      return false;
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z')) {
        return false;
      }
    }
    return true;
  }

  /** What a record stands for. */
  public enum Kind {
    START,
    END,
    EVENT,
    LOG,
    DROPPED;

    String token() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Severity, in the order records are dropped when the budget runs low (DEBUG first). */
  public enum Level {
    DEBUG,
    INFO,
    WARN,
    ERROR
  }

  /** A labelled text of a record value, e.g. {@code Start: 2024-06-01T10:00:00.123Z}. */
  public record Field(String label, String text) {
    public Field {
      requireNonNull(label, "label");
      requireNonNull(text, "text");
      if (!isLabel(label) || label.equals(KvpRecordFormat.ATTR)) {
        throw new IllegalArgumentException("not a field label: " + label);
      }
    }
  }

  public KvprovRecord {
    requireNonNull(kind, "kind");
    requireNonNull(level, "level");
    requireNonNull(vmId, "vmId");
    requireNonNull(recordId, "recordId");
    fields = List.copyOf(fields);
    requireNonNull(attributes, "attributes");
    if (!isId(recordId, 40, '.')) {
      throw new IllegalArgumentException("not a record id: " + recordId);
    }
    if (!isId(vmId, 36, '-')) {
      throw new IllegalArgumentException("not a VM id: " + vmId);
    }
  }

  /** The text of the first field with this label. */
  public Optional<String> field(String label) {
    // a loop, not a stream: called for every field of every span when a big pool is read
    for (Field field : fields) {
      if (field.label().equals(label)) {
        return Optional.of(field.text());
      }
    }
    return Optional.empty();
  }

  /** The span name ({@code Name}). */
  public Optional<String> name() {
    return field(KvpRecordFormat.NAME);
  }

  public Optional<String> traceId() {
    return field(KvpRecordFormat.TRACE);
  }

  public Optional<String> spanId() {
    return field(KvpRecordFormat.SPAN);
  }

  /** The parent span's id; empty for a root span. */
  public Optional<String> parentSpanId() {
    return field(KvpRecordFormat.PARENT);
  }

  /** When the span started (wall clock, millisecond precision). */
  public Optional<Instant> start() {
    return field(KvpRecordFormat.START).flatMap(KvprovRecord::instant);
  }

  /** When the span ended. */
  public Optional<Instant> end() {
    return field(KvpRecordFormat.END).flatMap(KvprovRecord::instant);
  }

  /** When an event or log record happened. */
  public Optional<Instant> time() {
    return field(KvpRecordFormat.TIME).flatMap(KvprovRecord::instant);
  }

  /** Time since boot of the start (or of an event), from the monotonic clock. */
  public Optional<Duration> sinceBoot() {
    return field(KvpRecordFormat.BOOT)
        .flatMap(b -> seconds(b.indexOf('-') < 0 ? b : b.substring(0, b.indexOf('-'))));
  }

  /** Time since boot of a span's end, from the monotonic clock. */
  public Optional<Duration> endSinceBoot() {
    return field(KvpRecordFormat.BOOT)
        .filter(b -> b.indexOf('-') > 0)
        .flatMap(b -> seconds(b.substring(b.indexOf('-') + 1)));
  }

  /** {@code ok}, {@code error} or {@code unset}, on span ends. */
  public Optional<String> status() {
    return field(KvpRecordFormat.STATUS);
  }

  /** The status description of a failed span. */
  public Optional<String> errorMessage() {
    return field(KvpRecordFormat.ERROR);
  }

  /**
   * What a span that did not fail ended with all the same ({@link KvprovAttributes#WARNING}): an
   * attempt that failed and was tried again, say.
   */
  public Optional<String> warning() {
    return kind == Kind.END
        ? Optional.ofNullable(attributes.get(KvprovAttributes.WARNING))
        : Optional.empty();
  }

  /** What a span found, in one line ({@link KvprovAttributes#SUMMARY}), on its end record. */
  public Optional<String> summary() {
    return kind == Kind.END
        ? Optional.ofNullable(attributes.get(KvprovAttributes.SUMMARY))
        : Optional.empty();
  }

  private static Optional<Instant> instant(String text) {
    return Optional.ofNullable(Rfc3339.parseOrNull(text));
  }

  private static Optional<Duration> seconds(String text) {
    long nanos = plainNanos(text);
    if (nanos >= 0) {
      return Optional.of(Duration.ofNanos(nanos));
    }
    try {
      // scaled, never moved: movePointRight writes out a number like 1e9999999 digit by digit
      // (a damaged record's Boot held kvp for most of a minute); a fraction of a nanosecond, or
      // more than a long holds, is decided on the digits alone
      BigDecimal nanosExactly = new BigDecimal(text).scaleByPowerOfTen(9).stripTrailingZeros();
      if (nanosExactly.scale() > 0 || nanosExactly.precision() - nanosExactly.scale() > 19) {
        return Optional.empty();
      }
      return Optional.of(Duration.ofNanos(nanosExactly.longValueExact()));
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * Seconds as kvprov writes them ({@code 12.345}: up to 9 digits, then up to 9 decimals), in
   * nanoseconds by hand; -1 for any other form, which {@link BigDecimal} reads as before.
   */
  private static long plainNanos(String text) {
    int dot = text.indexOf('.');
    int whole = dot < 0 ? text.length() : dot;
    int decimals = dot < 0 ? 0 : text.length() - dot - 1;
    if (whole == 0 || whole > 9 || decimals > 9 || dot >= 0 && decimals == 0) {
      return -1;
    }
    long seconds = 0;
    for (int i = 0; i < whole; i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      seconds = seconds * 10 + (c - '0');
    }
    long fraction = 0;
    for (int i = 0; i < 9; i++) {
      int d = 0;
      if (i < decimals) {
        char c = text.charAt(dot + 1 + i);
        if (c < '0' || c > '9') {
          return -1;
        }
        d = c - '0';
      }
      fraction = fraction * 10 + d;
    }
    return seconds * 1_000_000_000L + fraction;
  }
}
