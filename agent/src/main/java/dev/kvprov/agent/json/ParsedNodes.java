package dev.kvprov.agent.json;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;

/**
 * A tree of Jackson's nodes made from a streaming parser's tokens, without an {@code ObjectMapper}:
 * a mapper's start (the data-binding machinery, some 300 classes) costs a first boot more than the
 * few trees it reads (the configuration's TOML, IMDS's JSON).
 */
public final class ParsedNodes {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private ParsedNodes() {}

  /**
   * The value {@code parser} is on, with all that is inside it, as the format's mapper's {@code
   * readTree} makes it: integers as int, long or big-integer nodes by size, floats as double nodes
   * unless the parser gives a big decimal or a float (TOML's; JSON's parser gives doubles), a
   * format's own values (TOML's dates) as the parser hands them.
   */
  public static JsonNode of(JsonParser parser) throws IOException {
    JsonToken token = parser.currentToken();
    switch (token) {
      case START_OBJECT -> {
        ObjectNode table = NODES.objectNode();
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
          String key = parser.currentName();
          parser.nextToken();
          table.set(key, of(parser));
        }
        return table;
      }
      case START_ARRAY -> {
        ArrayNode array = NODES.arrayNode();
        while (parser.nextToken() != JsonToken.END_ARRAY) {
          array.add(of(parser));
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
