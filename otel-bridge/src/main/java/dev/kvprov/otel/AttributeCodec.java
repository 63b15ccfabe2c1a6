package dev.kvprov.otel;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.AttributeType;
import io.opentelemetry.api.common.AttributesBuilder;
import java.util.ArrayList;
import java.util.List;

/**
 * One typed attribute as the text of an {@code Attr} field: {@code key=text} for a string, {@code
 * key:int=5}, {@code key:double=0.5}, {@code key:bool=true}, and arrays as {@code
 * key:string[]=a,b,} with every element followed by a comma (so an empty array and one empty string
 * differ).
 */
final class AttributeCodec {
  private static final String KEY_SPECIALS = "=:";
  private static final String ELEMENT_SPECIALS = ",";

  private AttributeCodec() {}

  static void encode(AttributeKey<?> key, Object value, StringBuilder out) {
    TextEscaper.escape(key.getKey(), KEY_SPECIALS, out);
    AttributeType type = key.getType();
    switch (type) {
      case STRING -> {
        out.append('=');
        TextEscaper.escape((String) value, "", out);
      }
      case LONG, DOUBLE, BOOLEAN ->
          out.append(':').append(typeName(type)).append('=').append(value);
      default -> {
        out.append(':').append(typeName(type)).append('=');
        for (Object element : (List<?>) value) {
          TextEscaper.escape(String.valueOf(element), ELEMENT_SPECIALS, out);
          out.append(',');
        }
      }
    }
  }

  /** Parses the text of one {@code Attr} field into {@code into}; false if it is malformed. */
  static boolean decode(String text, AttributesBuilder into) {
    int equals = TextEscaper.indexOfUnescaped(text, '=', 0, text.length());
    if (equals < 0) {
      return false;
    }
    int colon = TextEscaper.indexOfUnescaped(text, ':', 0, equals);
    String key = TextEscaper.unescape(text, 0, colon < 0 ? equals : colon);
    String type = colon < 0 ? "string" : text.substring(colon + 1, equals);
    String raw = text.substring(equals + 1);
    try {
      switch (type) {
        case "string" ->
            into.put(AttributeKey.stringKey(key), TextEscaper.unescape(raw, 0, raw.length()));
        case "int" -> into.put(AttributeKey.longKey(key), Long.parseLong(raw));
        case "double" -> into.put(AttributeKey.doubleKey(key), Double.parseDouble(raw));
        case "bool" -> into.put(AttributeKey.booleanKey(key), parseBoolean(raw));
        case "string[]" -> into.put(AttributeKey.stringArrayKey(key), elements(raw));
        case "int[]" ->
            into.put(
                AttributeKey.longArrayKey(key),
                elements(raw).stream().map(Long::parseLong).toList());
        case "double[]" ->
            into.put(
                AttributeKey.doubleArrayKey(key),
                elements(raw).stream().map(Double::parseDouble).toList());
        case "bool[]" ->
            into.put(
                AttributeKey.booleanArrayKey(key),
                elements(raw).stream().map(AttributeCodec::parseBoolean).toList());
        default -> {
          return false;
        }
      }
    } catch (IllegalArgumentException e) {
      return false;
    }
    return true;
  }

  private static boolean parseBoolean(String raw) {
    return switch (raw) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException("not a boolean: " + raw);
    };
  }

  private static List<String> elements(String raw) {
    List<String> out = new ArrayList<>();
    int start = 0;
    while (start < raw.length()) {
      int comma = TextEscaper.indexOfUnescaped(raw, ',', start, raw.length());
      if (comma < 0) {
        throw new IllegalArgumentException("array element without its closing comma");
      }
      out.add(TextEscaper.unescape(raw, start, comma));
      start = comma + 1;
    }
    return out;
  }

  private static String typeName(AttributeType type) {
    return switch (type) {
      case STRING -> "string";
      case LONG -> "int";
      case DOUBLE -> "double";
      case BOOLEAN -> "bool";
      case STRING_ARRAY -> "string[]";
      case LONG_ARRAY -> "int[]";
      case DOUBLE_ARRAY -> "double[]";
      case BOOLEAN_ARRAY -> "bool[]";
      default -> throw new IllegalArgumentException("unsupported attribute type " + type);
    };
  }

  /** Attributes with only the types this grammar carries (newer SDK types are left out). */
  static boolean supported(AttributeKey<?> key) {
    return switch (key.getType()) {
      case STRING, LONG, DOUBLE, BOOLEAN, STRING_ARRAY, LONG_ARRAY, DOUBLE_ARRAY, BOOLEAN_ARRAY ->
          true;
      default -> false;
    };
  }
}
