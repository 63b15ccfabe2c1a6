package dev.kvprov.inspect;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
final class AzureInitDiagWriter extends Writer {
  /** The longest piece azure-init writes. */
  static final int PIECE_BYTES = 1022;

  /**
   * A piece shorter than this is the last of its payload: a cut steps back at most three bytes to
   * end on a whole character.
   */
  private static final int SHORTEST_FULL_PIECE = PIECE_BYTES - 3;

  /** The most a decoded payload may take: what kvp shows of a bigger one is cut there. */
  static final int MAX_DECODED_BYTES = 1 << 20;

  AzureInitDiagWriter() {
    super("azure-init-diag", "#76b7b2");
  }

  /** azure-init's, to a person: which of its formats is {@code list --json}'s business. */
  @Override
  String label() {
    return "azure-init";
  }

  @Override
  boolean owns(String key) {
    return DiagKey.owns(key);
  }

  @Override
  Piece piece(String key, String value, List<String> problems) {
    return DiagKey.parse(key, problems)
        .map(k -> new Piece(DiagKey.base(key), k.piece(), -1))
        .orElse(null);
  }

  @Override
  boolean lastOfUntold(String piece, int longestSoFar) {
    return piece.getBytes(UTF_8).length < SHORTEST_FULL_PIECE;
  }

  /** Pieces joined in number order (none may be missing), then the payload decoded. */
  @Override
  String join(String base, SortedMap<Integer, String> pieces, int count, List<String> problems) {
    int expected = 0;
    for (int number : pieces.keySet()) {
      if (number != expected) {
        problems.add(
            "piece"
                + (number - expected > 1 ? "s " + expected + " to " + (number - 1) : " " + expected)
                + " of the payload missing");
        break;
      }
      expected++;
    }
    String joined = String.join("", pieces.values());
    DiagKey key = DiagKey.ofItem(base);
    return key == null ? joined : decode(key.encoding(), joined, problems);
  }

  /** The payload as text; as stored, with the reason in {@code problems}, when it cannot be. */
  static String decode(String encoding, String payload, List<String> problems) {
    if (encoding.equals("none")) {
      return payload;
    }
    if (!List.of("b64", "gz+b64", "zlib+b64").contains(encoding)) {
      problems.add("an encoding kvp does not know (" + Text.printable(encoding) + "): as stored");
      return payload;
    }
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(payload);
    } catch (IllegalArgumentException e) {
      problems.add("the " + encoding + " payload is not base64: shown as stored");
      return payload;
    }
    try {
      byte[] text =
          switch (encoding) {
            case "b64" -> bytes;
            case "gz+b64" -> inflate(new GZIPInputStream(new java.io.ByteArrayInputStream(bytes)));
            case "zlib+b64" ->
                inflate(new InflaterInputStream(new java.io.ByteArrayInputStream(bytes)));
            default -> throw new IllegalStateException(encoding);
          };
      if (text.length > MAX_DECODED_BYTES) {
        problems.add("the payload decodes to more than 1 MiB: cut there");
        text = java.util.Arrays.copyOf(text, MAX_DECODED_BYTES);
      }
      try {
        return UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .decode(ByteBuffer.wrap(text))
            .toString();
      } catch (CharacterCodingException e) {
        problems.add("the payload decodes to " + text.length + " bytes that are not text");
        return new String(text, UTF_8);
      }
    } catch (IOException e) {
      problems.add("the " + encoding + " payload does not decompress: shown as stored");
      return payload;
    }
  }

  /** Reads a decompressing stream to its end, or one byte past the cap. */
  private static byte[] inflate(InputStream in) throws IOException {
    try (in) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] buffer = new byte[8192];
      int n;
      while ((n = in.read(buffer)) > 0) {
        out.write(buffer, 0, n);
        if (out.size() > MAX_DECODED_BYTES) {
          break;
        }
      }
      return out.toByteArray();
    }
  }

  /** A compressed payload, as {@link #join} decoded it. */
  @Override
  Payload payload(Item item) {
    DiagKey key = DiagKey.ofItem(item.key());
    if (key == null || key.encoding().equals("none")) {
      return null;
    }
    return item.problems().isEmpty()
        ? new Payload(key.encoding(), item.value(), null)
        : new Payload(key.encoding(), null, String.join("; ", item.problems()));
  }

  /** One item read: its key, its payload's level and message (a JSON payload's, if it is one). */
  private record Read(DiagKey key, String level, String message) {
    static Read of(Item item) {
      DiagKey key = DiagKey.ofItem(item.key());
      if (key == null) {
        return null;
      }
      String level = null;
      String message = item.value();
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

  @Override
  JsonNode event(Item item) {
    Read r = Read.of(item);
    if (r == null) {
      return null;
    }
    DiagKey k = r.key();
    ObjectNode node = Json.object();
    node.put("type", k.kind());
    node.put("level", r.level());
    node.put("name", k.name());
    Instant time = k.time();
    node.put("time", time != null ? time.toString() : k.timestamp());
    if (!k.result().isEmpty()) {
      node.put("status", k.failed() ? "error" : k.result().equals("success") ? "ok" : k.result());
    }
    k.length().ifPresent(d -> node.put("duration_s", d.toNanos() / 1e9));
    node.put("message", r.message());
    node.put("agent", k.agent());
    node.put("vm_id", k.vmId());
    node.put("event_id", k.eventId());
    node.put("format", k.form().prefix);
    return node;
  }

  /**
   * An operation's start and finish meet by event id; with no parents recorded, operations nest by
   * time. A finish whose start is missing starts its duration earlier; a start with no finish is
   * still running (or hung). A failed event fails the operation it happened in.
   */
  @Override
  SpanReader spans() {
    ContainedSpans contained = new ContainedSpans();
    Map<String, SpanNode> operations = new HashMap<>();
    return new SpanReader() {
      @Override
      public void add(Item item) {
        Read r = Read.of(item);
        if (r == null || r.key().time() == null) {
          return;
        }
        DiagKey k = r.key();
        if (k.kind().equals("event")) {
          if (k.failed()) {
            contained.failure(k.time(), r.message());
          }
          return;
        }
        String id = k.agent() + "|" + k.vmId() + "|" + k.eventId();
        SpanNode span = operations.get(id);
        if (span == null) {
          span = new SpanNode(k.name(), name());
          operations.put(id, span);
          contained.span(span);
        }
        if (k.kind().equals("start")) {
          span.start = k.time();
        } else {
          span.end = k.time();
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
  PointReader points() {
    return (item, points) -> {
      Read r = Read.of(item);
      if (r != null && r.key().kind().equals("event")) {
        points.add(
            new PointEvents.Point(
                r.key().time(),
                null,
                name(),
                "event",
                r.key().name(),
                r.key().failed() ? "error" : null,
                r.message()));
      }
    };
  }

  @Override
  Origin origin(Item item) {
    DiagKey k = DiagKey.ofItem(item.key());
    return k == null ? Origin.NONE : new Origin(k.vmId(), false, k.bootEpoch());
  }
}
