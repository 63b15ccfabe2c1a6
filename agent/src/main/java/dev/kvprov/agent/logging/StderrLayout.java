package dev.kvprov.agent.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.LayoutBase;
import dev.kvprov.otel.KvprovRecord;
import dev.kvprov.otel.StderrLine;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Locale;

/**
 * kvprov's stderr line for a logback event, {@code [ 12.345s] INFO provision/imds.fetch: ok
 * (0.231s)}, with its syslog priority first ({@code <3>} …) when stderr is the journal. For a
 * {@code logback.xml} that keeps kvprov's lines but sends them elsewhere:
 *
 * <pre>{@code
 * <encoder class="ch.qos.logback.core.encoder.LayoutWrappingEncoder">
 *   <layout class="dev.kvprov.agent.logging.StderrLayout"><journal>false</journal></layout>
 * </encoder>
 * }</pre>
 *
 * <p>The mirror's events (logger {@code kvprov}) carry their time since boot; any other event is
 * shown with its UTC time and its logger's name.
 */
public final class StderrLayout extends LayoutBase<ILoggingEvent> {
  private Boolean journal;

  /** Whether to start each line with its journal priority (default: when stderr is the journal). */
  public void setJournal(boolean journal) {
    this.journal = journal;
  }

  @Override
  public void start() {
    if (journal == null) {
      journal = StderrLine.stderrIsJournal(System.getenv());
    }
    super.start();
  }

  @Override
  public String doLayout(ILoggingEvent event) {
    StderrLine line = line(event);
    return (Boolean.TRUE.equals(journal) ? line.journalText() : line.text()) + "\n";
  }

  static StderrLine line(ILoggingEvent event) {
    String time = Logging.time(event);
    String what = event.getFormattedMessage();
    if (time == null) {
      time = Utc.FORMAT.format(event.getInstant().truncatedTo(ChronoUnit.MILLIS));
      what = event.getLoggerName() + ": " + what + cause(event.getThrowableProxy());
    }
    return new StderrLine(level(event.getLevel()), time, what);
  }

  /** A thrown cause in words (its first message), never its class name or stack. */
  static String cause(IThrowableProxy thrown) {
    for (IThrowableProxy t = thrown; t != null; t = t.getCause()) {
      String message = t.getMessage();
      if (message != null && !message.isBlank()) {
        return ": " + message.lines().findFirst().orElse("").strip();
      }
    }
    return "";
  }

  static KvprovRecord.Level level(Level level) {
    return switch (level.toInt()) {
      case Level.ERROR_INT -> KvprovRecord.Level.ERROR;
      case Level.WARN_INT -> KvprovRecord.Level.WARN;
      case Level.INFO_INT -> KvprovRecord.Level.INFO;
      default -> KvprovRecord.Level.DEBUG;
    };
  }

  /** Made only for an event that is not the mirror's: those are rare. */
  private static final class Utc {
    static final DateTimeFormatter FORMAT =
        DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'", Locale.ROOT)
            .withZone(ZoneOffset.UTC);
  }
}
