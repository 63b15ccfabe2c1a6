package dev.kvprov.otel;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvprov.kvp.KvpRecord;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Pattern;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;

/**
 * kvprov's records in azure-init's diagnostic grammar ({@code DIAG}, its {@code libazureinit-kvp}
 * diagnostics), for host-side tools that read only that: a span's start and end become an
 * operation's {@code start} and {@code finish} (one event id), a span event or a log record an
 * {@code event}. A second form of the same records, written beside kvprov's own (never instead: the
 * budget, {@code kvp status} and the next run read those), in the same append.
 *
 * <pre>
 * DIAG|&lt;agent&gt;|&lt;vm id&gt;|&lt;kind&gt;|&lt;name&gt;|&lt;event id&gt;|&lt;timestamp&gt;|&lt;encoding&gt;|&lt;result&gt;|&lt;duration&gt;|&lt;piece&gt;
 * </pre>
 *
 * <p>The payload is JSON, as azure-init's tracing bridge writes it: {@code {"target": "kvprov",
 * "level": …, "fields": {"message": …, "kvprov": <kvprov's value of the same record>}}}; plain
 * ({@code none}) when it fits one piece, {@code zlib+b64} when that takes fewer pieces.
 */
final class DiagRecordFormat {
  static final String PREFIX = "DIAG";

  /** The longest piece of a payload, in bytes; a cut steps back to a whole character. */
  static final int PIECE_BYTES = 1022;

  static final int MAX_KEY_BYTES = 254;
  static final int MAX_AGENT_BYTES = 32;
  static final int MAX_NAME_BYTES = 64;

  /** azure-init's writer takes only a UUID here; kvprov's {@code unknown} becomes this one. */
  static final String NIL_UUID = "00000000-0000-0000-0000-000000000000";

  private static final Pattern UUID_TEXT =
      Pattern.compile(
          "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

  private final String agent;

  /**
   * @param agent the program and version ({@code kvprov/0.1.0}), made safe for the key
   */
  DiagRecordFormat(String agent) {
    this.agent = cut(safe(agent.isEmpty() ? "kvprov" : agent), MAX_AGENT_BYTES);
  }

  String agent() {
    return agent;
  }

  /** Whether a pool key is one of kvprov's own DIAG records (counted in kvprov's budget). */
  static boolean isKvprovKey(String key) {
    return key.startsWith(PREFIX + "|kvprov/") || key.startsWith(PREFIX + "|kvprov|");
  }

  /**
   * The pool records of one (already fitted) kvprov record, its pieces in order; none for the
   * budget's drop count, which is kvprov's alone.
   */
  List<KvpRecord> encode(KvprovRecord record) {
    String kind =
        switch (record.kind()) {
          case START -> "start";
          case END -> "finish";
          case EVENT, LOG -> "event";
          case DROPPED -> null;
        };
    if (kind == null) {
      return List.of();
    }
    String name =
        cut(
            safe(
                record.kind() == KvprovRecord.Kind.EVENT
                    ? record.field(KvpRecordFormat.EVENT).orElse("event")
                    : record.name().orElse(kind)),
            MAX_NAME_BYTES);
    if (name.isEmpty()) {
      name = kind;
    }
    String timestamp =
        record
            .field(
                switch (record.kind()) {
                  case START -> KvpRecordFormat.START;
                  case END -> KvpRecordFormat.END;
                  default -> KvpRecordFormat.TIME;
                })
            .filter(t -> Rfc3339.parseOrNull(t) != null)
            .orElse(SpanRecords.time(System.currentTimeMillis() * 1_000_000L));
    String result =
        switch (record.kind()) {
          case START -> "";
          case END -> "error".equals(record.status().orElse("")) ? "fail" : "success";
          default -> record.level() == KvprovRecord.Level.ERROR ? "fail" : "";
        };
    String duration = record.kind() == KvprovRecord.Kind.END ? duration(record) : "";
    String vmId = UUID_TEXT.matcher(record.vmId()).matches() ? record.vmId() : NIL_UUID;

    String json = payload(record);
    byte[] plain = json.getBytes(UTF_8);
    String encoding = "none";
    String value = json;
    if (plain.length > PIECE_BYTES) {
      String zlib = Base64.getEncoder().encodeToString(zlib(plain));
      if (zlib.length() < plain.length) {
        encoding = "zlib+b64";
        value = zlib;
      }
    }
    String base =
        String.join(
            "|",
            PREFIX,
            agent,
            vmId,
            kind,
            name,
            eventId(record),
            timestamp,
            encoding,
            result,
            duration);
    int room = MAX_KEY_BYTES - base.getBytes(UTF_8).length - 5; // "|" and a piece number
    if (room < 0) {
      // only a name of many multi-byte characters gets here: shorter, the key fits
      String shorter = cut(name, name.getBytes(UTF_8).length + room);
      base = base.replace("|" + kind + "|" + name + "|", "|" + kind + "|" + shorter + "|");
    }
    List<KvpRecord> out = new ArrayList<>();
    for (String piece : pieces(value)) {
      out.add(new KvpRecord(base + "|" + out.size(), piece));
    }
    return out;
  }

  /**
   * One event id for a span's start and finish (the trace id's first half, then the span id, so
   * that it leads back to kvprov's own records); for an event or a log record, a name-based UUID of
   * its kvprov record id.
   */
  private static String eventId(KvprovRecord record) {
    String trace = record.traceId().orElse("");
    if ((record.kind() == KvprovRecord.Kind.START || record.kind() == KvprovRecord.Kind.END)
        && trace.length() == 32
        && record.recordId().length() == 16) {
      String hex = trace.substring(0, 16) + record.recordId();
      return hex.substring(0, 8)
          + "-"
          + hex.substring(8, 12)
          + "-"
          + hex.substring(12, 16)
          + "-"
          + hex.substring(16, 20)
          + "-"
          + hex.substring(20);
    }
    return UUID.nameUUIDFromBytes(("kvprov|" + trace + "|" + record.recordId()).getBytes(UTF_8))
        .toString();
  }

  /**
   * Seconds with six decimals ({@code 0.231000}), as azure-init writes them: from the span's {@code
   * Duration}, which kvprov keeps to the millisecond.
   */
  private static String duration(KvprovRecord record) {
    String text = record.field(KvpRecordFormat.DURATION).orElse("0s");
    try {
      BigDecimal seconds =
          new BigDecimal(text.endsWith("s") ? text.substring(0, text.length() - 1) : text);
      return seconds.max(BigDecimal.ZERO).setScale(6, java.math.RoundingMode.DOWN).toPlainString();
    } catch (NumberFormatException e) {
      return "0.000000";
    }
  }

  /** The JSON payload: level, a message a person reads first, and kvprov's whole value. */
  private static String payload(KvprovRecord record) {
    String message =
        switch (record.kind()) {
          case LOG -> record.field(KvpRecordFormat.BODY).orElse("");
          case EVENT -> record.field(KvpRecordFormat.EVENT).orElse("");
          // a failure's reason, or what an attempt tried again for; the key says the rest
          case END -> record.errorMessage().or(record::warning).orElse("");
          default -> "";
        };
    StringBuilder out = new StringBuilder(512);
    out.append("{\"target\":\"kvprov\",\"level\":\"")
        .append(record.level().name())
        .append("\",\"fields\":{\"message\":");
    json(message, out);
    out.append(",\"kvprov\":");
    json(KvpRecordFormat.value(record), out);
    return out.append("}}").toString();
  }

  private static void json(String text, StringBuilder out) {
    out.append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20 || c == 0x7f || lone(text, i)) {
        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    out.append('"');
  }

  private static byte[] zlib(byte[] bytes) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(bytes.length / 2 + 16);
    try (DeflaterOutputStream zlib =
        new DeflaterOutputStream(out, new Deflater(Deflater.DEFAULT_COMPRESSION))) {
      zlib.write(bytes);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e); // a stream in memory does not fail
    }
    return out.toByteArray();
  }

  /**
   * The value cut into pieces of at most {@link #PIECE_BYTES} bytes, each ending on a whole
   * character; an empty value is one empty piece.
   */
  static List<String> pieces(String value) {
    List<String> out = new ArrayList<>();
    byte[] bytes = value.getBytes(UTF_8);
    int from = 0;
    do {
      int end = Math.min(bytes.length, from + PIECE_BYTES);
      while (end < bytes.length && (bytes[end] & 0xC0) == 0x80) {
        end--; // not inside a character
      }
      out.add(new String(bytes, from, end - from, UTF_8));
      from = end;
    } while (from < bytes.length);
    return out;
  }

  /** No {@code |} (the key's separator), NUL or other control character in a key field. */
  private static String safe(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      out.append(c == '|' || c < 0x20 || c == 0x7f || lone(text, i) ? '_' : c);
    }
    return out.toString();
  }

  private static boolean lone(String text, int i) {
    char c = text.charAt(i);
    if (Character.isHighSurrogate(c)) {
      return i + 1 >= text.length() || !Character.isLowSurrogate(text.charAt(i + 1));
    }
    return Character.isLowSurrogate(c)
        && (i == 0 || !Character.isHighSurrogate(text.charAt(i - 1)));
  }

  /** The longest prefix of at most {@code maxBytes} UTF-8 bytes that ends on a whole character. */
  private static String cut(String text, int maxBytes) {
    byte[] bytes = text.getBytes(UTF_8);
    if (bytes.length <= maxBytes) {
      return text;
    }
    int end = Math.max(0, maxBytes);
    while (end > 0 && (bytes[end] & 0xC0) == 0x80) {
      end--;
    }
    return new String(bytes, 0, end, UTF_8);
  }
}
