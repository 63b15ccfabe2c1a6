package dev.kvprov.otel;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.KeyValue;
import io.opentelemetry.api.common.Value;
import java.util.List;
import org.junit.jupiter.api.Test;

class RedactorTest {
  private final Redactor redactor = new Redactor();

  @Test
  void overlappingSecrets_maskTheWholeStretch() {
    redactor.register("abcdEF");
    redactor.register("cdEFGHIJ");

    assertThat(redactor.redact("xxabcdEFGHIJyy")).isEqualTo("xx[redacted]yy");
    assertThat(redactor.redact("abcdEF and cdEFGHIJ")).isEqualTo("[redacted] and [redacted]");
  }

  @Test
  void shortValues_areNotRegistered() {
    redactor.register("abc");
    assertThat(redactor.redact("abcabc")).isEqualTo("abcabc");
  }

  @Test
  void secretLookingKeys_areDropped_andSecretsMaskedInKeysAndValues() {
    redactor.register("hunter22");
    Attributes attributes =
        Attributes.builder()
            .put("admin.Password", "x")
            .put("CUSTOM_DATA", "y")
            .put("auth-token", "z")
            .put("user", "azureuser hunter22")
            .put("hunter22", "key is the secret")
            .put(AttributeKey.longKey("count.hunter22"), 3L)
            .put(AttributeKey.stringArrayKey("argv"), List.of("-p", "hunter22"))
            .build();

    Attributes safe = redactor.redact(attributes);

    assertThat(safe.asMap().keySet())
        .extracting(AttributeKey::getKey)
        .containsExactlyInAnyOrder("user", "[redacted]", "count.[redacted]", "argv");
    assertThat(safe.get(AttributeKey.stringKey("user"))).isEqualTo("azureuser [redacted]");
    assertThat(safe.get(AttributeKey.longKey("count.[redacted]"))).isEqualTo(3L);
    assertThat(safe.get(AttributeKey.stringArrayKey("argv"))).containsExactly("-p", "[redacted]");
  }

  @Test
  void structuredLogBodies_loseSecretEntries_andMaskSecretsEverywhereElse() {
    redactor.register("hunter22");
    Value<?> body =
        Value.of(
            KeyValue.of("user", Value.of("azureuser")),
            KeyValue.of("password", Value.of("hunter22")),
            KeyValue.of("note", Value.of(List.of(Value.of("tried hunter22"), Value.of(7L)))));

    String text = redactor.redact(body).asString();

    assertThat(text).contains("azureuser").contains("[redacted]").doesNotContain("hunter22");
    assertThat(text).doesNotContain("password");
  }
}
