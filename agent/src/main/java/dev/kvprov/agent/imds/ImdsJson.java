package dev.kvprov.agent.imds;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import dev.kvprov.agent.json.ParsedNodes;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * IMDS's answer read with Jackson's streaming parser into a tree, and the tree into {@link
 * ImdsInstance} by hand. An {@code ObjectMapper} gave the same records, but its start and the
 * deserializers it builds for the records by reflection came on a first boot's main thread, before
 * the warm-up thread could have them ready. What it accepted and refused is kept ({@code
 * ImdsJsonTest} holds both readings side by side): a scalar where text is read is its text, {@code
 * "true"} and {@code "false"} are booleans, unknown fields are ignored, the last of a repeated key
 * counts, what follows the first value is not read; a value of another kind is refused, naming
 * where.
 */
final class ImdsJson {
  private static final JsonFactory FACTORY = new JsonFactory();

  private ImdsJson() {}

  /** JSON that is not instance metadata: where, and what kvprov reads there. */
  static final class NotMetadata extends Exception {
    private static final long serialVersionUID = 1L;

    NotMetadata(String where, String kind) {
      super((where.isEmpty() ? "the metadata" : where) + " is not " + kind);
    }
  }

  /**
   * The body's first JSON value as a tree; empty for a body with none.
   *
   * @throws IOException when the body is not JSON (a {@code JacksonException}), or holds a value
   *     where instance metadata can hold none
   */
  static Optional<JsonNode> tree(byte[] body) throws IOException {
    try (JsonParser parser = FACTORY.createParser(body)) {
      return parser.nextToken() == null ? Optional.empty() : Optional.of(ParsedNodes.of(parser));
    }
  }

  /**
   * The instance the tree describes; empty for JSON's {@code null}.
   *
   * @throws NotMetadata for a value of another kind than kvprov reads where it reads it
   * @throws IOException for a null among the public keys (read as a body cut short, as before)
   */
  static Optional<ImdsInstance> instance(JsonNode tree) throws NotMetadata, IOException {
    if (tree.isNull()) {
      return Optional.empty();
    }
    JsonNode root = object(tree, "");
    return Optional.of(
        new ImdsInstance(
            compute(root.get("compute")), json(root.get("network")), json(root.get("extended"))));
  }

  private static ImdsInstance.Compute compute(JsonNode node) throws NotMetadata, IOException {
    if (absent(node)) {
      return null;
    }
    object(node, "compute");
    return new ImdsInstance.Compute(
        text(node, "compute", "vmId"),
        text(node, "compute", "name"),
        text(node, "compute", "location"),
        text(node, "compute", "vmSize"),
        osProfile(node.get("osProfile")),
        publicKeys(node.get("publicKeys")),
        map(node.get("extended"), "compute.extended"),
        text(node, "compute", "userData"));
  }

  private static ImdsInstance.OsProfile osProfile(JsonNode node) throws NotMetadata {
    String where = "compute.osProfile";
    if (absent(node)) {
      return null;
    }
    object(node, where);
    return new ImdsInstance.OsProfile(
        text(node, where, "adminUsername"),
        text(node, where, "computerName"),
        bool(node.get("disablePasswordAuthentication"), where + ".disablePasswordAuthentication"));
  }

  private static List<ImdsInstance.PublicKey> publicKeys(JsonNode node)
      throws NotMetadata, IOException {
    String where = "compute.publicKeys";
    if (absent(node)) {
      return null;
    }
    if (!node.isArray()) {
      throw new NotMetadata(where, "a list");
    }
    List<ImdsInstance.PublicKey> keys = new ArrayList<>(node.size());
    for (int i = 0; i < node.size(); i++) {
      JsonNode key = node.get(i);
      String at = where + "[" + i + "]";
      if (key.isNull()) {
        throw new IOException("a null among " + where);
      }
      object(key, at);
      keys.add(new ImdsInstance.PublicKey(text(key, at, "keyData"), text(key, at, "path")));
    }
    return keys;
  }

  /** A tree kept as sent ({@code network}, {@code extended}): JSON's null is a null node. */
  private static JsonNode json(JsonNode node) {
    return node;
  }

  private static Map<String, Object> map(JsonNode node, String where) throws NotMetadata {
    if (absent(node)) {
      return null;
    }
    object(node, where);
    return untypedObject(node);
  }

  private static Map<String, Object> untypedObject(JsonNode node) {
    Map<String, Object> values = new LinkedHashMap<>();
    node.fields().forEachRemaining(field -> values.put(field.getKey(), untyped(field.getValue())));
    return values;
  }

  /** As Jackson binds a value to {@code Object}: maps, lists, text, numbers, booleans, null. */
  private static Object untyped(JsonNode node) {
    if (node.isObject()) {
      return untypedObject(node);
    }
    if (node.isArray()) {
      List<Object> values = new ArrayList<>(node.size());
      node.forEach(value -> values.add(untyped(value)));
      return values;
    }
    if (node.isTextual()) {
      return node.textValue();
    }
    if (node.isNumber()) {
      return node.numberValue();
    }
    if (node.isBoolean()) {
      return node.booleanValue();
    }
    return null;
  }

  private static String text(JsonNode parent, String where, String field) throws NotMetadata {
    JsonNode node = parent.get(field);
    if (absent(node)) {
      return null;
    }
    if (node.isContainerNode()) {
      throw new NotMetadata(where + "." + field, "a string");
    }
    return node.asText();
  }

  private static Boolean bool(JsonNode node, String where) throws NotMetadata {
    if (absent(node)) {
      return null;
    }
    if (node.isBoolean()) {
      return node.booleanValue();
    }
    if (node.isIntegralNumber()) {
      return node.asLong() != 0;
    }
    if (node.isTextual()) {
      String text = node.textValue().strip();
      switch (text) {
        case "true", "True", "TRUE" -> {
          return true;
        }
        case "false", "False", "FALSE" -> {
          return false;
        }
        case "", "null" -> {
          return null;
        }
        default -> {
          // as below
        }
      }
    }
    throw new NotMetadata(where, "true or false");
  }

  private static JsonNode object(JsonNode node, String where) throws NotMetadata {
    if (!node.isObject()) {
      throw new NotMetadata(where, "an object");
    }
    return node;
  }

  private static boolean absent(JsonNode node) {
    return node == null || node.isNull();
  }
}
