package dev.kvprov.inspect.text;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.Iterator;
import java.util.Map;

/**
 * JSON trees read and written with Jackson's streaming API only. An {@code ObjectMapper} costs more
 * to start than a short {@code kvp} run takes in all; the trees here are plain Jackson nodes.
 */
public final class Json {
  private static final JsonFactory FACTORY = new JsonFactory();

  private Json() {}

  /**
   * A tree of plain values — strings, numbers, booleans, nulls, lists and maps with string keys, in
   * their order — for {@link #write}.
   */
  public static JsonNode tree(Object value) {
    JsonNodeFactory f = JsonNodeFactory.instance;
    if (value == null) {
      return f.nullNode();
    }
    if (value instanceof java.util.Map<?, ?> map) {
      ObjectNode object = f.objectNode();
      map.forEach((k, v) -> object.set(String.valueOf(k), tree(v)));
      return object;
    }
    if (value instanceof Iterable<?> list) {
      ArrayNode array = f.arrayNode();
      list.forEach(v -> array.add(tree(v)));
      return array;
    }
    if (value instanceof Boolean b) {
      return f.booleanNode(b);
    }
    if (value instanceof Long || value instanceof Integer) {
      return f.numberNode(((Number) value).longValue());
    }
    return f.textNode(String.valueOf(value));
  }

  public static ObjectNode object() {
    return JsonNodeFactory.instance.objectNode();
  }

  public static ArrayNode array() {
    return JsonNodeFactory.instance.arrayNode();
  }

  /**
   * Reads one JSON value.
   *
   * @throws IOException if the text is not exactly one JSON value
   */
  public static JsonNode parse(String text) throws IOException {
    try (JsonParser parser = FACTORY.createParser(text)) {
      JsonToken first = parser.nextToken();
      if (first == null) {
        throw new IOException("no JSON value");
      }
      JsonNode node = read(parser, first);
      if (parser.nextToken() != null) {
        throw new IOException("more than one JSON value");
      }
      return node;
    }
  }

  /** The string a JSON string literal's body (without its quotes) stands for. */
  public static String unescape(String body) throws IOException {
    JsonNode node = parse("\"" + body + "\"");
    return node.textValue();
  }

  private static JsonNode read(JsonParser parser, JsonToken token) throws IOException {
    JsonNodeFactory nodes = JsonNodeFactory.instance;
    return switch (token) {
      case START_OBJECT -> {
        ObjectNode object = nodes.objectNode();
        for (JsonToken t = parser.nextToken(); t != JsonToken.END_OBJECT; t = parser.nextToken()) {
          String name = parser.currentName();
          object.set(name, read(parser, parser.nextToken()));
        }
        yield object;
      }
      case START_ARRAY -> {
        ArrayNode array = nodes.arrayNode();
        for (JsonToken t = parser.nextToken(); t != JsonToken.END_ARRAY; t = parser.nextToken()) {
          array.add(read(parser, t));
        }
        yield array;
      }
      case VALUE_STRING -> nodes.textNode(parser.getText());
      case VALUE_NUMBER_INT ->
          parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER
              ? nodes.numberNode(parser.getBigIntegerValue())
              : nodes.numberNode(parser.getLongValue());
      case VALUE_NUMBER_FLOAT -> nodes.numberNode(parser.getDecimalValue());
      case VALUE_TRUE -> nodes.booleanNode(true);
      case VALUE_FALSE -> nodes.booleanNode(false);
      case VALUE_NULL -> nodes.nullNode();
      default -> throw new IOException("unexpected JSON token " + token);
    };
  }

  /**
   * JSON Lines onto {@code out}: one compact value per line, written straight into it (no string
   * per line), never flushing {@code out} itself.
   */
  public static final class Lines {
    private final Writer out;
    private final JsonGenerator generator;

    public Lines(Writer out) {
      this.out = out;
      try {
        generator =
            FACTORY
                .createGenerator(out)
                .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET)
                .disable(JsonGenerator.Feature.FLUSH_PASSED_TO_STREAM);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      generator.setRootValueSeparator(null);
    }

    public void write(JsonNode node) {
      try {
        Json.write(node, generator);
        generator.flush();
        out.write('\n');
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** The node as compact JSON. */
  public static String write(JsonNode node) {
    StringWriter text = new StringWriter();
    try (JsonGenerator generator = FACTORY.createGenerator(text)) {
      write(node, generator);
    } catch (IOException e) {
      throw new UncheckedIOException("writing to a string cannot fail", e);
    }
    return text.toString();
  }

  private static void write(JsonNode node, JsonGenerator out) throws IOException {
    switch (node.getNodeType()) {
      case OBJECT -> {
        out.writeStartObject();
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> field = it.next();
          out.writeFieldName(field.getKey());
          write(field.getValue(), out);
        }
        out.writeEndObject();
      }
      case ARRAY -> {
        out.writeStartArray();
        for (JsonNode element : node) {
          write(element, out);
        }
        out.writeEndArray();
      }
      case STRING -> out.writeString(node.textValue());
      case NUMBER -> {
        if (node.isBigInteger()) {
          out.writeNumber(node.bigIntegerValue());
        } else if (node.isIntegralNumber()) {
          out.writeNumber(node.longValue());
        } else if (node.isBigDecimal()) {
          out.writeNumber(node.decimalValue());
        } else {
          out.writeNumber(node.doubleValue());
        }
      }
      case BOOLEAN -> out.writeBoolean(node.booleanValue());
      default -> out.writeNull();
    }
  }
}
