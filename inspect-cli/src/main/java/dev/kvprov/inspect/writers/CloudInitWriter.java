package dev.kvprov.inspect.writers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvprov.inspect.text.Json;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * cloud-init's Hyper-V KVP handler: {@code CLOUD_INIT|…} keys, an event's JSON in {@code msg_i}
 * chunks.
 */
public final class CloudInitWriter {
  static final Writer WRITER = new Writer("cloud-init", "#59a14f", new Rule(), new Reader());

  private CloudInitWriter() {}

  /** Its records: {@code CLOUD_INIT|…} keys, an event's JSON cut into {@code msg_i} chunks. */
  private static final class Rule extends RecordRule {
    @Override
    boolean owns(String key) {
      return key.startsWith("CLOUD_INIT|");
    }

    /** An event's chunks: {@code |<i>} on the key, {@code "msg_i":<i>} in the value; no count. */
    @Override
    public Piece piece(String key, String value, List<String> problems) {
      int chunk = chunk(key, value);
      return chunk < 0 ? null : new Piece(key.substring(0, key.lastIndexOf('|')), chunk, -1);
    }

    /**
     * The event JSON as cloud-init would have written it unsplit: the chunks' raw {@code msg}
     * slices joined in {@code msg_i} order (a slice may end inside an escape), unescaped once.
     */
    @Override
    public String join(
        String base, SortedMap<Integer, String> pieces, int count, List<String> problems) {
      StringBuilder escaped = new StringBuilder();
      int expect = 0;
      for (Map.Entry<Integer, String> piece : pieces.entrySet()) {
        int chunk = piece.getKey();
        if (chunk > expect) {
          problems.add(
              chunk - expect == 1
                  ? "cloud-init chunk " + expect + " missing"
                  : "cloud-init chunks " + expect + " to " + (chunk - 1) + " missing");
        }
        expect = chunk + 1;
        escaped.append(slice(piece.getValue()));
      }
      try {
        return Joined.event(pieces.get(pieces.firstKey()), escaped.toString());
      } catch (Exception e) {
        String where =
            e instanceof com.fasterxml.jackson.core.JsonProcessingException json
                    && json.getLocation() != null
                    && json.getLocation().getColumnNr() > 0
                ? " (not valid JSON at character " + json.getLocation().getColumnNr() + ")"
                : "";
        problems.add("cloud-init chunks do not reassemble into the event's JSON" + where);
        return String.join("", pieces.values());
      }
    }
  }

  /**
   * The joining's JSON work, in a class of its own: the verifier checks the code of {@link Rule},
   * which every pool's reading links, and would load Jackson's node classes for code that hands
   * them on, whether or not the pool holds a cloud-init record.
   */
  private static final class Joined {
    private Joined() {}

    /** The first chunk's event with the joined message in place of its slice. */
    static String event(String firstChunk, String escapedMessage) throws Exception {
      String message = Json.unescape(escapedMessage);
      ObjectNode event = (ObjectNode) Json.parse(withoutMessage(firstChunk));
      event.remove("msg_i");
      event.put("msg", message);
      String text = Json.write(event);
      LAST.set(new Made(text, event));
      return text;
    }

    /**
     * The event the last join on this thread made, with its text: an item is read on the thread
     * that joined it, right after (InPoolOrder), so its reading takes the event as made instead of
     * parsing again the text just written.
     */
    private static final ThreadLocal<Made> LAST = new ThreadLocal<>();

    private record Made(String text, ObjectNode event) {}

    /** The event made for {@code text}, when the last join on this thread wrote it; else null. */
    static ObjectNode madeFor(String text) {
      Made made = LAST.get();
      if (made == null || made.text() != text) {
        return null;
      }
      LAST.remove(); // read once: a second reading parses, as before
      return made.event();
    }
  }

  /** Its items: each event's JSON parsed once, for its event, its spans and points. */
  private static final class Reader extends ItemReader<ObjectNode> {
    /**
     * The event as cloud-init wrote it, kept whole, with its time ({@code ts}), its status ({@code
     * result}, in lower case) and its message ({@code msg}).
     */
    @Override
    Optional<Event> event(Item item, ObjectNode node) {
      Map<String, String> attributes = new LinkedHashMap<>();
      node.fields()
          .forEachRemaining(
              f -> {
                if (f.getValue().isTextual()) {
                  attributes.put(f.getKey(), f.getValue().asText());
                }
              });
      Instant ts = SpanForest.time(node.path("ts").asText(""));
      Optional<String> time =
          ts != null ? Optional.of(ts.toString()) : Optional.ofNullable(attributes.get("time"));
      Optional<String> status =
          node.has("result")
              ? Optional.of(node.path("result").asText().toLowerCase(Locale.ROOT))
              : Optional.ofNullable(attributes.get("status"));
      Optional<String> message =
          node.has("msg")
              ? Optional.of(node.path("msg").asText())
              : Optional.ofNullable(attributes.get("message"));
      return Optional.of(
          new Event(
              node.path("type").asText(""),
              Optional.of(node.path("name").asText("")).filter(n -> !n.isEmpty()),
              node.has("level") ? Optional.of(node.path("level").asText()) : Optional.empty(),
              status,
              new Event.Times(
                  time,
                  Optional.ofNullable(attributes.get("start")),
                  Optional.ofNullable(attributes.get("end")),
                  seconds(node.path("since_boot_s")),
                  seconds(node.path("duration_s"))),
              message,
              attributes,
              Optional.of(item.value())));
    }

    /** The event, parsed; empty when it is not a JSON object. */
    @Override
    Optional<ObjectNode> reading(Item item) {
      return Optional.ofNullable(parsed(item));
    }

    @Override
    SpanReader<ObjectNode> spans() {
      return new CloudInitSpans();
    }

    @Override
    PointReader<ObjectNode> points() {
      return new Points();
    }

    /**
     * {@code CLOUD_INIT|<boot epoch>|<type>|<name>|<vm id>|<uuid>} since 26.1; before, no vm id.
     */
    @Override
    public Origin origin(Item item) {
      String[] parts = item.key().split("\\|", -1);
      Long boot =
          parts.length > 1 && parts[1].matches("\\d{1,12}") ? Long.parseLong(parts[1]) : null;
      return new Origin(parts.length == 6 ? parts[4] : null, false, boot);
    }

    /** A {@code compressed} event's {@code {"encoding", "data"}}, expanded. */
    @Override
    public Optional<Payload> payload(Item item) {
      ObjectNode event = parsed(item);
      if (event == null || !event.path("type").asText().equals("compressed")) {
        return Optional.empty();
      }
      String encoding = "";
      try {
        JsonNode payload = Json.parse(event.path("msg").asText());
        encoding = payload.path("encoding").asText();
        return Optional.of(new Payload(encoding, inflate(payload.path("data").asText()), null));
      } catch (java.io.IOException
          | java.util.zip.DataFormatException
          | IllegalArgumentException e) {
        return Optional.of(new Payload(encoding, null, String.valueOf(e.getMessage())));
      }
    }

    /**
     * Events other than start and finish (those are spans) are points; the boot in the keys, whole
     * seconds, tells when the boot began: the smallest, since each stage writes its own estimate.
     */
    private final class Points implements PointReader<ObjectNode> {
      private Long bootEpoch;

      @Override
      public void add(Item item, Optional<ObjectNode> reading, List<PointEvents.Point> points) {
        Long epoch = origin(item).bootEpoch();
        if (epoch != null) {
          bootEpoch = bootEpoch == null ? epoch : Math.min(epoch, bootEpoch);
        }
        if (reading.isEmpty()) {
          return;
        }
        ObjectNode event = reading.get();
        String type = event.path("type").asText("");
        if (type.equals("start") || type.equals("finish")) {
          return;
        }
        String message = event.path("msg").asText("");
        if (type.equals("compressed")) {
          // A base64 blob says nothing on a timeline.
          message = "compressed, " + message.length() + " chars: kvp decode shows it";
        }
        String status = event.path("result").asText("SUCCESS").equals("FAIL") ? "error" : null;
        points.add(
            new PointEvents.Point(
                SpanForest.time(event.path("ts").asText("")),
                null,
                WRITER.name(),
                type,
                event.path("name").asText(""),
                status,
                message));
      }

      @Override
      public Boot boot() {
        return bootEpoch == null
            ? null
            : new Boot(
                Instant.ofEpochSecond(bootEpoch),
                WRITER.name(),
                "from cloud-init keys (boot epoch, whole seconds)");
      }
    }
  }

  /** The event JSON, parsed; null when it is not a JSON object. */
  private static ObjectNode parsed(Item item) {
    ObjectNode made = Joined.madeFor(item.value());
    if (made != null) {
      return made;
    }
    try {
      return Json.parse(item.value()) instanceof ObjectNode node ? node : null;
    } catch (Exception e) {
      return null;
    }
  }

  private static Optional<java.time.Duration> seconds(JsonNode number) {
    return number.isNumber()
        ? Optional.of(java.time.Duration.ofNanos((long) (number.asDouble() * 1e9)))
        : Optional.empty();
  }

  private static final String MSG_I = "\"msg_i\":";
  private static final String MSG = ",\"msg\":\"";

  /**
   * The chunk number of a cloud-init chunk ({@code CLOUD_INIT|…|<i>} with {@code "msg_i":<i>} in
   * its value), or -1 for any other record.
   */
  private static int chunk(String key, String value) {
    int bar = key.lastIndexOf('|');
    int at = value.indexOf(MSG_I);
    if (at < 0 || !digits(key, bar + 1, key.length())) {
      return -1;
    }
    int from = at + MSG_I.length();
    int to = from;
    while (to < value.length() && to - from < 9 && Character.isDigit(value.charAt(to))) {
      to++;
    }
    return to == from ? -1 : Integer.parseInt(value, from, to, 10);
  }

  private static boolean digits(String s, int from, int to) {
    if (to <= from || to - from > 9) {
      return false;
    }
    for (int i = from; i < to; i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }

  /**
   * A chunk's slice of the escaped message: everything between {@code ,"msg":"} and the closing
   * {@code "}}. Taken by position, not by parsing: a slice may end inside an escape.
   */
  private static String slice(String chunk) {
    int at = chunk.indexOf(MSG);
    if (at < 0) {
      return "";
    }
    int end = chunk.endsWith("\"}") ? chunk.length() - 2 : chunk.length();
    return chunk.substring(Math.min(at + MSG.length(), end), end);
  }

  /** The chunk's JSON without its message: the event's other fields. */
  private static String withoutMessage(String chunk) {
    int at = chunk.indexOf(MSG);
    return at < 0 ? chunk : chunk.substring(0, at) + "}";
  }

  /** Decompressed payloads are capped: a zlib bomb must not fill memory. */
  static final int MAX_DECODED_BYTES = 64 << 20;

  /** Base64 (with line breaks) of zlib data, which cloud-init labels "gz+b64". */
  public static String inflate(String base64) throws DataFormatException {
    byte[] compressed = Base64.getMimeDecoder().decode(base64);
    Inflater inflater = new Inflater();
    try {
      inflater.setInput(compressed);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] buffer = new byte[8192];
      while (!inflater.finished()) {
        int n = inflater.inflate(buffer);
        if (n == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
          throw new DataFormatException("the compressed data ends early");
        }
        out.write(buffer, 0, n);
        if (out.size() > MAX_DECODED_BYTES) {
          throw new DataFormatException(
              "more than " + MAX_DECODED_BYTES + " bytes decoded; stopped");
        }
      }
      return out.toString(StandardCharsets.UTF_8);
    } finally {
      inflater.end();
    }
  }
}
