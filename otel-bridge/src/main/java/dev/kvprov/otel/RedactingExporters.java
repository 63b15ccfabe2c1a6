package dev.kvprov.otel;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.Value;
import io.opentelemetry.api.logs.Severity;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.common.InstrumentationScopeInfo;
import io.opentelemetry.sdk.logs.data.Body;
import io.opentelemetry.sdk.logs.data.LogRecordData;
import io.opentelemetry.sdk.logs.export.LogRecordExporter;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.data.DelegatingSpanData;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.data.StatusData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * Exporters for sinks outside kvprov (OTLP) that see spans and logs only after the {@link Redactor}
 * has been over them, and that report their failures once.
 */
final class RedactingExporters {
  private RedactingExporters() {}

  static SpanExporter spans(
      SpanExporter delegate,
      Redactor redactor,
      FailureReporter failures,
      String sink,
      Set<CompletableResultCode> pending) {
    return new SpanExporter() {
      @Override
      public CompletableResultCode export(Collection<SpanData> spans) {
        List<SpanData> safe =
            spans.stream().map(s -> (SpanData) new RedactedSpan(s, redactor)).toList();
        return watched(delegate.export(safe), failures, sink, pending);
      }

      @Override
      public CompletableResultCode flush() {
        return delegate.flush();
      }

      @Override
      public CompletableResultCode shutdown() {
        return delegate.shutdown();
      }
    };
  }

  static LogRecordExporter logs(
      LogRecordExporter delegate,
      Redactor redactor,
      FailureReporter failures,
      String sink,
      Set<CompletableResultCode> pending) {
    return new LogRecordExporter() {
      @Override
      public CompletableResultCode export(Collection<LogRecordData> logs) {
        List<LogRecordData> safe =
            logs.stream().map(l -> (LogRecordData) new RedactedLog(l, redactor)).toList();
        return watched(delegate.export(safe), failures, sink, pending);
      }

      @Override
      public CompletableResultCode flush() {
        return delegate.flush();
      }

      @Override
      public CompletableResultCode shutdown() {
        return delegate.shutdown();
      }
    };
  }

  /**
   * Reports a failed export, and keeps the export in {@code pending} until it completes, so that
   * one still hanging at close can be reported too.
   */
  private static CompletableResultCode watched(
      CompletableResultCode result,
      FailureReporter failures,
      String sink,
      Set<CompletableResultCode> pending) {
    pending.add(result);
    result.whenComplete(
        () -> {
          pending.remove(result);
          if (!result.isSuccess()) {
            Throwable cause = result.getFailureThrowable();
            failures.failure(sink, cause == null ? "export failed" : cause.toString());
          }
        });
    return result;
  }

  private static final class RedactedSpan extends DelegatingSpanData {
    private final Redactor redactor;

    RedactedSpan(SpanData delegate, Redactor redactor) {
      super(delegate);
      this.redactor = redactor;
    }

    @Override
    public String getName() {
      return redactor.redact(super.getName());
    }

    @Override
    public Attributes getAttributes() {
      return redactor.redact(super.getAttributes());
    }

    @Override
    public StatusData getStatus() {
      StatusData status = super.getStatus();
      return StatusData.create(status.getStatusCode(), redactor.redact(status.getDescription()));
    }

    @Override
    public List<LinkData> getLinks() {
      return super.getLinks().stream()
          .map(
              l ->
                  LinkData.create(
                      l.getSpanContext(),
                      redactor.redact(l.getAttributes()),
                      l.getTotalAttributeCount()))
          .toList();
    }

    @Override
    public List<EventData> getEvents() {
      return super.getEvents().stream()
          .map(
              e ->
                  EventData.create(
                      e.getEpochNanos(),
                      redactor.redact(e.getName()),
                      redactor.redact(e.getAttributes()),
                      e.getTotalAttributeCount()))
          .toList();
    }
  }

  @SuppressWarnings("deprecation") // getBody() is still part of the interface
  private record RedactedLog(LogRecordData delegate, Redactor redactor) implements LogRecordData {
    @Override
    public Resource getResource() {
      return delegate.getResource();
    }

    @Override
    public InstrumentationScopeInfo getInstrumentationScopeInfo() {
      return delegate.getInstrumentationScopeInfo();
    }

    @Override
    public long getTimestampEpochNanos() {
      return delegate.getTimestampEpochNanos();
    }

    @Override
    public long getObservedTimestampEpochNanos() {
      return delegate.getObservedTimestampEpochNanos();
    }

    @Override
    public SpanContext getSpanContext() {
      return delegate.getSpanContext();
    }

    @Override
    public Severity getSeverity() {
      return delegate.getSeverity();
    }

    @Override
    public String getSeverityText() {
      return delegate.getSeverityText();
    }

    @Override
    public Body getBody() {
      Value<?> body = getBodyValue();
      return body == null ? Body.empty() : Body.string(body.asString());
    }

    @Override
    public Value<?> getBodyValue() {
      return redactor.redact(delegate.getBodyValue());
    }

    @Override
    public Attributes getAttributes() {
      return redactor.redact(delegate.getAttributes());
    }

    @Override
    public int getTotalAttributeCount() {
      return delegate.getTotalAttributeCount();
    }

    @Override
    public String getEventName() {
      return delegate.getEventName();
    }
  }
}
