package dev.kvprov.inspect.writers;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvprov.inspect.text.Json;
import dev.kvprov.inspect.text.Text;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.zip.GZIPInputStream;
import java.util.zip.InflaterInputStream;

/**
 * azure-init's diagnostic records ({@link DiagKey}): an operation's {@code start} and {@code
 * finish} share an event id, the finish has the result and the duration; an {@code event} is one
 * moment. Payloads are cut into pieces of at most 1,022 bytes, each ending on a whole character,
 * numbered from 0 with no count; compressed ones ({@code gz+b64}, {@code zlib+b64}) are decoded
 * here.
 */
public final class AzureInitDiagWriter {
  /** The longest piece azure-init writes. */
  static final int PIECE_BYTES = 1022;

  /**
   * A piece shorter than this is the last of its payload: a cut steps back at most three bytes to
   * end on a whole character.
   */
  private static final int SHORTEST_FULL_PIECE = PIECE_BYTES - 3;

  /** azure-init's, to a person: which of its formats is {@code list --json}'s business. */
  static final Writer WRITER =
      new Writer("azure-init-diag", "azure-init", "#76b7b2", new Rule(), new Reader());

  private AzureInitDiagWriter() {}

  /** Its records: {@link DiagKey}s, payloads in numbered pieces of at most 1,022 bytes. */
  private static final class Rule extends RecordRule {
    @Override
    boolean owns(String key) {
      return DiagKey.owns(key);
    }

    @Override
    public Piece piece(String key, String value, List<String> problems) {
      return DiagKey.parse(key, problems)
          .map(
              k -> {
                if (k.piece() == 0) { // once per payload
                  k.durationProblem().ifPresent(problems::add);
                }
                return new Piece(DiagKey.base(key), k.piece(), -1);
              })
          .orElse(null);
    }

    @Override
    public boolean lastOfUntold(String piece, int longestSoFar) {
      return piece.getBytes(UTF_8).length < SHORTEST_FULL_PIECE;
    }

    /**
     * Pieces joined in number order (none may be missing). The value stays as stored: a compressed
     * payload is checked here and decoded where it is shown ({@link Reader#event}, bounded) or
     * asked for ({@code kvp decode}), so that a pool of small compressed records cannot fill
     * memory.
     */
    @Override
    public String join(
        String base, SortedMap<Integer, String> pieces, int count, List<String> problems) {
      int expected = 0;
      for (int number : pieces.keySet()) {
        if (number != expected) {
          problems.add(
              "piece"
                  + (number - expected > 1
                      ? "s " + expected + " to " + (number - 1)
                      : " " + expected)
                  + " of the payload missing");
          break;
        }
        expected++;
      }
      String joined = String.join("", pieces.values());
      DiagKey key = DiagKey.ofItem(base);
      if (key != null) {
        decode(key.encoding(), joined, CHECKED_BYTES, problems); // said if it does not decode
      }
      return joined;
    }
  }

  /** How much of a compressed payload {@link Rule#join} decodes to check it. */
  private static final int CHECKED_BYTES = 64 << 10;

  /** How much of a payload an item's event shows; {@code kvp decode} shows the rest. */
  public static final int SHOWN_BYTES = 16 << 10;

  /** The most {@code kvp decode} gives of one payload: a bomb must not fill memory. */
  static final int MAX_DECODED_BYTES = 64 << 20;

  /**
   * The payload as text, at most {@code cap} bytes of it (cut at a whole character and marked);
   * null, with the reason in {@code problems}, when it does not decode.
   */
  public static String decode(String encoding, String payload, int cap, List<String> problems) {
    if (encoding.equals("none")) {
      return payload;
    }
    if (!List.of("b64", "gz+b64", "zlib+b64").contains(encoding)) {
      problems.add("an encoding kvp does not know (" + Text.printable(encoding) + ")");
      return null;
    }
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(payload);
    } catch (IllegalArgumentException e) {
      problems.add("the " + encoding + " payload is not base64");
      return null;
    }
    if (encoding.equals("zlib+b64") && bytes.length > 1 && (bytes[1] & 0x20) != 0) {
      // the stream would end at once, empty: it needs a dictionary nobody wrote down
      problems.add("the zlib+b64 payload needs a preset dictionary");
      return null;
    }
    byte[] text;
    boolean more;
    try (InputStream in =
        switch (encoding) {
          case "gz+b64" -> new GZIPInputStream(new ByteArrayInputStream(bytes));
          case "zlib+b64" -> new InflaterInputStream(new ByteArrayInputStream(bytes));
          default -> new ByteArrayInputStream(bytes);
        }) {
      text = in.readNBytes(cap);
      more = in.read() >= 0;
    } catch (IOException e) {
      problems.add("the " + encoding + " payload does not decompress");
      return null;
    }
    int end = text.length;
    if (more) {
      while (end > 0 && (text[end - 1] & 0xC0) == 0x80) {
        end--; // not inside a character
      }
      end = end > 0 && (text[end - 1] & 0xC0) == 0xC0 ? end - 1 : end;
    }
    try {
      String decoded =
          UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(text, 0, end))
              .toString();
      return more ? decoded + "…[more than " + cap + " bytes: kvp decode shows them]" : decoded;
    } catch (CharacterCodingException e) {
      problems.add("the payload decodes to bytes that are not text");
      return null;
    }
  }

  /** One item read: its key, its payload's level and message (a JSON payload's, if it is one). */
  private record Read(DiagKey key, String level, String message) {
    static Read of(Item item) {
      DiagKey key = DiagKey.ofItem(item.key());
      if (key == null) {
        return null;
      }
      String level = null;
      String message =
          decode(key.encoding(), item.value(), SHOWN_BYTES, new java.util.ArrayList<>());
      if (message == null) {
        message = "(a " + key.encoding() + " payload that does not decode: kvp list --json has it)";
      }
      // Through azure-init's tracing bridge, a payload is {"target":…,"level":…,"fields":{…}}.
      if (message.startsWith("{")) {
        try {
          JsonNode payload = Json.parse(message);
          String said = payload.path("level").asText("").toUpperCase(Locale.ROOT);
          level = List.of("TRACE", "DEBUG", "INFO", "WARN", "ERROR").contains(said) ? said : null;
          level = "TRACE".equals(level) ? "DEBUG" : level;
          JsonNode fields = payload.path("fields");
          for (String field : List.of("error", "message")) {
            if (fields.path(field).isTextual()) {
              message = fields.path(field).asText();
              break;
            }
          }
        } catch (Exception e) {
          // not JSON after all: the text as it is
        }
      }
      if (key.failed()) {
        level = "ERROR";
      }
      return new Read(key, level == null ? "INFO" : level, message);
    }
  }

  /** Its items: each key and payload read once ({@link Read}), for its event, spans and points. */
  private static final class Reader extends ItemReader<Read> {
    /**
     * kvprov writes its records in this grammar too when asked ({@code kvp.formats}), as the agent
     * {@code kvprov/<version>} ({@code kvprov} when it knows no version), always beside its own
     * form of the same records. Another agent's name that merely begins with "kvprov" is not one.
     */
    @Override
    public boolean copy(Item item) {
      String key = item.key();
      return key.startsWith("DIAG|kvprov/") || key.startsWith("DIAG|kvprov|");
    }

    /** A compressed payload, decoded whole (up to 64 MiB). */
    @Override
    public Optional<Payload> payload(Item item) {
      DiagKey key = DiagKey.ofItem(item.key());
      if (key == null || key.encoding().equals("none")) {
        return Optional.empty();
      }
      List<String> problems = new java.util.ArrayList<>();
      String text = decode(key.encoding(), item.value(), MAX_DECODED_BYTES, problems);
      return Optional.of(
          text != null
              ? new Payload(key.encoding(), text, null)
              : new Payload(key.encoding(), null, String.join("; ", problems)));
    }

    @Override
    Optional<Event> event(Item item, Read r) {
      DiagKey k = r.key();
      Instant time = k.time();
      Map<String, String> attributes = new LinkedHashMap<>();
      attributes.put("agent", k.agent());
      attributes.put("vm_id", k.vmId());
      attributes.put("event_id", k.eventId());
      attributes.put("format", k.form().prefix);
      return Optional.of(
          new Event(
              k.kind(),
              Optional.of(k.name()),
              Optional.of(r.level()),
              k.result().isEmpty()
                  ? Optional.empty()
                  : Optional.of(
                      k.failed() ? "error" : k.result().equals("success") ? "ok" : k.result()),
              new Event.Times(
                  Optional.of(time != null ? time.toString() : k.timestamp()),
                  Optional.empty(),
                  Optional.empty(),
                  Optional.empty(),
                  k.length()),
              Optional.of(r.message()),
              attributes,
              Optional.empty()));
    }

    /** The key and payload, read; empty when the key does not read. */
    @Override
    Optional<Read> reading(Item item) {
      return Optional.ofNullable(Read.of(item));
    }

    /**
     * An operation's start and finish meet by event id; with no parents recorded, operations nest
     * by time, and records written in the same second (the writer may keep whole seconds) by the
     * order of the records. A finish whose start is missing starts its duration earlier; a start
     * with no finish is still running (or hung). A failed event fails the operation it happened in.
     */
    @Override
    SpanReader<Read> spans() {
      ContainedSpans contained = new ContainedSpans();
      Map<String, SpanNode> operations = new HashMap<>();
      return new SpanReader<>() {
        @Override
        public void add(Item item, Read r) {
          // a finish whose time does not read still ends its operation: by its duration
          if (r.key().time() == null && !r.key().kind().equals("finish")) {
            return;
          }
          DiagKey k = r.key();
          String id = k.agent() + "|" + k.vmId() + "|" + k.eventId();
          if (k.time() == null) {
            SpanNode started = operations.get(id);
            if (started != null && started.start != null) {
              started.end = started.start.plus(k.length().orElse(Duration.ZERO));
              started.endRecord = item.index();
              started.status = k.failed() ? "error" : "ok";
              started.message = k.failed() ? r.message() : "";
              contained.settle(started);
            }
            return;
          }
          if (k.kind().equals("event")) {
            if (k.failed()) {
              contained.failure(k.time(), item.index(), r.message());
            }
            return;
          }
          SpanNode span = operations.get(id);
          if (span == null) {
            span = new SpanNode(k.name(), WRITER);
            operations.put(id, span);
            span.startRecord = item.index(); // its start's, or its finish's if none comes
            contained.span(span);
          }
          if (k.kind().equals("finish")) {
            contained.settle(span); // its result says how it ended, whatever happened inside
          }
          if (k.kind().equals("start")) {
            span.start = k.time();
            span.startRecord = item.index();
          } else {
            span.end = k.time();
            span.endRecord = item.index();
            if (span.start == null) {
              Duration length = k.length().orElse(Duration.ZERO);
              span.start = k.time().minus(length);
            }
            span.status = k.failed() ? "error" : "ok";
            span.message = k.failed() ? r.message() : "";
          }
        }

        @Override
        public List<SpanNode> roots(List<String> notes) {
          return contained.roots();
        }
      };
    }

    /** Its events are points. */
    @Override
    PointReader<Read> points() {
      return (item, reading, points) -> {
        Read r = reading.orElse(null);
        if (r != null && r.key().kind().equals("event")) {
          points.add(
              new PointEvents.Point(
                  r.key().time(),
                  null,
                  WRITER.name(),
                  "event",
                  r.key().name(),
                  r.key().failed() ? "error" : null,
                  r.message(),
                  item.index()));
        }
      };
    }

    @Override
    public Origin origin(Item item) {
      DiagKey k = DiagKey.ofItem(item.key());
      return k == null ? Origin.NONE : new Origin(k.vmId(), false, k.bootEpoch());
    }
  }
}
