package dev.kvprov.agent.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.UnsynchronizedAppenderBase;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.logs.LogRecordBuilder;
import io.opentelemetry.api.logs.LoggerProvider;
import io.opentelemetry.api.logs.Severity;
import org.slf4j.event.KeyValuePair;

/**
 * Every logback event as an OpenTelemetry log record, in the span current on the thread that logged
 * it: the instrumentation scope is the logger's name, the body its message (and a thrown cause's
 * message, never a stack), key-value pairs become attributes. The time is the telemetry's own clock
 * at this moment, so that the record's time since boot agrees with the spans'.
 *
 * <p>The mirror's own events are left out, and so is anything logged while a record is being
 * emitted: both come from the telemetry, and sending them back would loop.
 *
 * <p>Ours rather than OpenTelemetry's logback appender: that one is an alpha artifact whose version
 * must follow the SDK's by hand, brings four jars and about 40 more classes to start-up, and what
 * it adds (code locations, MDC, markers, a global install) the agent does not use.
 */
final class OtelLogAppender extends UnsynchronizedAppenderBase<ILoggingEvent> {
  static final String NAME = "opentelemetry";

  private static final ThreadLocal<Boolean> EMITTING = new ThreadLocal<>();

  private final LoggerProvider provider;
  private final String skipped;

  /**
   * @param skipped the logger whose events come from the telemetry (the mirror's)
   */
  OtelLogAppender(LoggerProvider provider, String skipped) {
    this.provider = provider;
    this.skipped = skipped;
    setName(NAME);
  }

  @Override
  protected void append(ILoggingEvent event) {
    if (event.getLoggerName().equals(skipped) || EMITTING.get() != null) {
      return;
    }
    EMITTING.set(Boolean.TRUE);
    try {
      LogRecordBuilder record =
          provider
              .get(event.getLoggerName())
              .logRecordBuilder()
              .setSeverity(severity(event.getLevel()))
              .setSeverityText(event.getLevel().toString())
              .setBody(event.getFormattedMessage() + StderrLayout.cause(event.getThrowableProxy()));
      if (event.getKeyValuePairs() != null) {
        for (KeyValuePair pair : event.getKeyValuePairs()) {
          record.setAttribute(AttributeKey.stringKey(pair.key), String.valueOf(pair.value));
        }
      }
      record.emit();
    } finally {
      EMITTING.remove();
    }
  }

  private static Severity severity(Level level) {
    return switch (level.toInt()) {
      case Level.ERROR_INT -> Severity.ERROR;
      case Level.WARN_INT -> Severity.WARN;
      case Level.INFO_INT -> Severity.INFO;
      case Level.DEBUG_INT -> Severity.DEBUG;
      default -> Severity.TRACE;
    };
  }
}
