package dev.kvprov.otel;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.logs.Severity;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import java.util.List;

/**
 * A realistic provisioning trace with a secret planted everywhere a careless agent might put it.
 */
final class CanaryTrace {
  private CanaryTrace() {}

  static void plant(KvpTelemetry telemetry, String secret) {
    Span root = telemetry.tracer().spanBuilder("provision").startSpan();
    try (Scope ignored = root.makeCurrent()) {
      Span media =
          telemetry
              .tracer()
              .spanBuilder("media.read_ovf")
              .setAttribute("admin.password", secret) // secret-looking key: dropped
              .setAttribute("ovf.UserPassword", secret)
              .setAttribute("customData", "base64-" + secret)
              .setAttribute("note", "parsed password " + secret) // innocent key: masked
              .setAttribute(AttributeKey.stringArrayKey("args"), List.of("--password", secret))
              .startSpan();
      media.addEvent("read " + secret, Attributes.of(AttributeKey.stringKey("value"), secret));
      media.end();
      Span user = telemetry.tracer().spanBuilder("user.password").startSpan();
      try (Scope inUser = user.makeCurrent()) {
        telemetry
            .logger()
            .logRecordBuilder()
            .setSeverity(Severity.DEBUG)
            .setBody("chpasswd input: azureuser:" + secret)
            .setAttribute(AttributeKey.stringKey("stdin"), secret)
            .emit();
        user.recordException(new IllegalStateException("chpasswd rejected " + secret));
      }
      user.setStatus(StatusCode.ERROR, "password " + secret + " rejected");
      user.end();
      telemetry
          .logger()
          .logRecordBuilder()
          .setSeverity(io.opentelemetry.api.logs.Severity.INFO)
          .setBody(
              io.opentelemetry.api.common.Value.of(
                  io.opentelemetry.api.common.KeyValue.of(
                      "password", io.opentelemetry.api.common.Value.of(secret)),
                  io.opentelemetry.api.common.KeyValue.of(
                      "note", io.opentelemetry.api.common.Value.of("tried " + secret))))
          .emit();
      telemetry
          .tracer()
          .spanBuilder("linked")
          .addLink(
              media.getSpanContext(),
              Attributes.builder().put("admin.password", secret).put("why", secret).build())
          .setAttribute(secret, "a secret used as a key")
          .startSpan()
          .end();
      telemetry.report(
          ProvisioningReport.failure(
              "Password setup failed",
              "kvprov/test",
              "unknown",
              java.time.Instant.now(),
              java.util.Map.of(
                  "detail", "bad password " + secret,
                  "quoted", "\"" + secret + "\" was rejected",
                  "long", "x".repeat(990) + " " + secret)));
    }
    root.end();
  }
}
