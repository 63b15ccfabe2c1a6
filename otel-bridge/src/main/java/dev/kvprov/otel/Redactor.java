package dev.kvprov.otel;

import static java.util.Objects.requireNonNull;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.AttributeType;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Keeps secrets out of every sink. Two rules, applied to all telemetry before any sink sees it:
 * attributes whose key looks secret ({@code password}, {@code secret}, {@code token}, {@code
 * customdata}, {@code userdata}, …) are dropped; and every registered secret value (the admin
 * password read from the provisioning media, the custom data) is masked wherever it appears — in
 * attribute values, span and event names, status messages and log bodies.
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

  /** {@code text} with every registered secret masked. */
  public String redact(String text) {
    if (text == null || secrets.isEmpty()) {
      return text;
    }
    String out = text;
    for (String secret : secrets) {
      if (out.contains(secret)) {
        out = out.replace(secret, MASK);
      }
    }
    return out;
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

  @SuppressWarnings("unchecked")
  private void put(AttributesBuilder out, AttributeKey<?> key, Object value) {
    if (key.getType() == AttributeType.STRING) {
      out.put((AttributeKey<String>) key, redact((String) value));
    } else if (key.getType() == AttributeType.STRING_ARRAY) {
      out.put(
          (AttributeKey<List<String>>) key,
          ((List<String>) value).stream().map(this::redact).toList());
    } else {
      out.put((AttributeKey<Object>) key, value);
    }
  }
}
