package dev.kvprov.agent.config;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.toml.TomlFactory;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * A TOML text as a tree of Jackson's nodes, read with the TOML module's parser alone. A {@code
 * TomlMapper} gives the same tree, but its start (the whole data-binding machinery: some 300
 * classes of serializers, deserializers and type introspection) came first on every boot's path,
 * for a tree whose nodes the parser has already made. The nodes are those its {@code readTree}
 * makes: integers as int, long or big-integer nodes by size, floats as double nodes unless the
 * parser gives a big decimal or a float ({@code TomlTreeTest} compares both on every kind of
 * value).
 */
final class TomlTree {
  private static final TomlFactory FACTORY = new TomlFactory();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private TomlTree() {}

  /** {@code text}'s tables and values; the parser's exception when it is not TOML. */
  static JsonNode read(String text) throws JacksonException {
    try (JsonParser parser = FACTORY.createParser(text)) {
      parser.nextToken();
      return node(parser);
    } catch (JacksonException e) {
      throw e;
    } catch (IOException e) {
      // a String has no I/O to fail; the parser's signature says it may
      throw new UncheckedIOException(e);
    }
  }

  /** The value the parser is on, with all that is inside it. */
  private static JsonNode node(JsonParser parser) throws IOException {
    JsonToken token = parser.currentToken();
    switch (token) {
      case START_OBJECT -> {
        ObjectNode table = NODES.objectNode();
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
          String key = parser.currentName();
          parser.nextToken();
          table.set(key, node(parser));
        }
        return table;
      }
      case START_ARRAY -> {
        ArrayNode array = NODES.arrayNode();
        while (parser.nextToken() != JsonToken.END_ARRAY) {
          array.add(node(parser));
        }
        return array;
      }
      case VALUE_STRING -> {
        return NODES.textNode(parser.getText());
      }
      case VALUE_NUMBER_INT -> {
        return switch (parser.getNumberType()) {
          case INT -> NODES.numberNode(parser.getIntValue());
          case LONG -> NODES.numberNode(parser.getLongValue());
          default -> NODES.numberNode(parser.getBigIntegerValue());
        };
      }
      case VALUE_NUMBER_FLOAT -> {
        return switch (parser.getNumberType()) {
          case BIG_DECIMAL -> NODES.numberNode(parser.getDecimalValue());
          case FLOAT -> NODES.numberNode(parser.getFloatValue());
          default -> NODES.numberNode(parser.getDoubleValue());
        };
      }
      case VALUE_TRUE, VALUE_FALSE -> {
        return NODES.booleanNode(token == JsonToken.VALUE_TRUE);
      }
      case VALUE_EMBEDDED_OBJECT -> {
        return NODES.pojoNode(parser.getEmbeddedObject());
      }
      default -> {
        return NODES.nullNode();
      }
    }
  }
}
