package dev.kvprov.otel;

import static java.util.Objects.requireNonNull;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.AttributeType;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.common.KeyValue;
import io.opentelemetry.api.common.Value;
import io.opentelemetry.api.common.ValueType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Keeps secrets out of every sink. Two rules, applied to all telemetry before any sink sees it:
 * attributes (and structured log-body entries) whose key looks secret ({@code password}, {@code
 * secret}, {@code token}, {@code customdata}, {@code userdata}, …) are dropped; and every
 * registered secret value (the admin password read from the provisioning media, the custom data) is
 * masked wherever it appears — in attribute keys and values, span and event names, status messages,
 * log bodies and the provisioning report.
 */
public final class Redactor {
  /** What a masked secret is replaced with. */
  public static final String MASK = "[redacted]";

  private static final List<String> SECRET_KEY_WORDS =
      List.of(
          "password",
          "passwd",
          "passphrase",
          "secret",
          "token",
          "credential",
          "customdata",
          "userdata",
          "privatekey",
          "apikey",
          "authorization",
          "cookie");

  /** Shorter values are not registered: masking them would blank out ordinary words. */
  static final int MIN_SECRET_LENGTH = 4;

  private final List<String> secrets = new CopyOnWriteArrayList<>();

  Redactor() {}

  /**
   * Masks {@code secret} from now on wherever it appears. Values shorter than 4 characters are
   * ignored.
   */
  public void register(String secret) {
    requireNonNull(secret, "secret");
    if (secret.length() >= MIN_SECRET_LENGTH && !secrets.contains(secret)) {
      secrets.add(secret);
    }
  }

  /** Whether an attribute with this key is dropped. */
  public static boolean isSecretKey(String key) {
    String folded = key.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
    for (String word : SECRET_KEY_WORDS) {
      if (folded.contains(word)) {
        return true;
      }
    }
    return false;
  }

  /**
   * {@code text} with every registered secret masked. Where secrets overlap, the whole stretch they
   * cover is masked, so no piece of either shows.
   */
  public String redact(String text) {
    if (text == null || secrets.isEmpty()) {
      return text;
    }
    boolean[] covered = null;
    for (String secret : secrets) {
      for (int at = text.indexOf(secret); at >= 0; at = text.indexOf(secret, at + 1)) {
        if (covered == null) {
          covered = new boolean[text.length()];
        }
        java.util.Arrays.fill(covered, at, at + secret.length(), true);
      }
    }
    if (covered == null) {
      return text;
    }
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      if (!covered[i]) {
        out.append(text.charAt(i));
      } else if (i == 0 || !covered[i - 1]) {
        out.append(MASK);
      }
    }
    return out.toString();
  }

  /** {@code attributes} without secret-looking keys and with registered secrets masked. */
  public Attributes redact(Attributes attributes) {
    if (attributes.isEmpty()) {
      return attributes;
    }
    AttributesBuilder out = Attributes.builder();
    attributes.forEach(
        (key, value) -> {
          if (!isSecretKey(key.getKey())) {
            put(out, key, value);
          }
        });
    return out.build();
  }

  /**
   * A log body with the same rules: entries of a structured body whose key looks secret are
   * dropped, registered secrets masked in every string, keys included.
   */
  public Value<?> redact(Value<?> body) {
    if (body == null) {
      return null;
    }
    ValueType type = body.getType();
    if (type == ValueType.STRING) {
      return Value.of(redact((String) body.getValue()));
    }
    if (type == ValueType.ARRAY) {
      @SuppressWarnings("unchecked")
      List<Value<?>> items = (List<Value<?>>) body.getValue();
      return Value.of(items.stream().map(this::redact).toList());
    }
    if (type == ValueType.KEY_VALUE_LIST) {
      @SuppressWarnings("unchecked")
      List<KeyValue> entries = (List<KeyValue>) body.getValue();
      List<KeyValue> kept = new ArrayList<>();
      for (KeyValue entry : entries) {
        if (!isSecretKey(entry.getKey())) {
          kept.add(KeyValue.of(redact(entry.getKey()), redact(entry.getValue())));
        }
      }
      return Value.of(kept.toArray(KeyValue[]::new));
    }
    return body; // numbers, booleans, bytes
  }

  @SuppressWarnings("unchecked")
  private void put(AttributesBuilder out, AttributeKey<?> key, Object value) {
    String name = redact(key.getKey());
    switch (key.getType()) {
      case STRING -> out.put(AttributeKey.stringKey(name), redact((String) value));
      case STRING_ARRAY ->
          out.put(
              AttributeKey.stringArrayKey(name),
              ((List<String>) value).stream().map(this::redact).toList());
      default -> {
        if (name.equals(key.getKey())) {
          out.put((AttributeKey<Object>) key, value);
        } else {
          putRenamed(out, key.getType(), name, value);
        }
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static void putRenamed(
      AttributesBuilder out, AttributeType type, String name, Object value) {
    switch (type) {
      case LONG -> out.put(AttributeKey.longKey(name), (Long) value);
      case DOUBLE -> out.put(AttributeKey.doubleKey(name), (Double) value);
      case BOOLEAN -> out.put(AttributeKey.booleanKey(name), (Boolean) value);
      case LONG_ARRAY -> out.put(AttributeKey.longArrayKey(name), (List<Long>) value);
      case DOUBLE_ARRAY -> out.put(AttributeKey.doubleArrayKey(name), (List<Double>) value);
      case BOOLEAN_ARRAY -> out.put(AttributeKey.booleanArrayKey(name), (List<Boolean>) value);
      default -> {
        // other attribute kinds carry no name we could mask; drop rather than leak
      }
    }
  }
}
