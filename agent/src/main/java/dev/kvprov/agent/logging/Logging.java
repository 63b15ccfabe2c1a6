package dev.kvprov.agent.logging;

import static java.nio.charset.StandardCharsets.UTF_8;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import ch.qos.logback.core.joran.spi.JoranException;
import ch.qos.logback.core.status.Status;
import dev.kvprov.otel.KvpTelemetry;
import dev.kvprov.otel.StderrLine;
import java.io.FilterOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;
import org.slf4j.event.KeyValuePair;

/**
 * The agent's logging: SLF4J for the code, logback behind it. logback writes kvprov's stderr lines
 * (the telemetry's mirror, with journal priorities when stderr is the journal), and every other log
 * event is sent into the telemetry, so that it reaches KVP and OTLP like a span, redacted, and
 * comes back to stderr as a mirror line.
 *
 * <pre>
 *   code ─ SLF4J ─► root logger ─► telemetry (OtelLogAppender) ─► KVP, OTLP, mirror
 *   mirror ─► logger "kvprov" (not additive) ─► stderr (StderrLayout)
 * </pre>
 *
 * <p>Set up in code by default, without reading or parsing any XML (start-up stays lean); {@code
 * /etc/kvprov/logback.xml} under the run's root replaces that set-up when it exists.
 */
public final class Logging {
  /**
   * The one logger the mirror's lines go through. One, not one per span path: span names hold dots,
   * which logback would take for levels of a hierarchy nobody configures, and each name would be a
   * logger kept for the life of the JVM. It is not additive, and never sent into the telemetry: its
   * lines come from the telemetry, and sending them back would loop.
   */
  public static final String MIRROR = "kvprov";

  /** The overriding configuration, under the run's root. */
  public static final String CONFIG_FILE = "/etc/kvprov/logback.xml";

  /** The key of a mirror event's time: since boot ({@code 12.345s}), or UTC. */
  static final String TIME = "time";

  /** Held while SLF4J finds its backend: see {@link #factory}. */
  private static final Object STARTING = new Object();

  /** The appender of the in-code set-up, until the telemetry takes the root logger's events. */
  private static volatile Appender<ILoggingEvent> early;

  private Logging() {}

  /**
   * The mirror's lines as events of the {@link #MIRROR} logger, at their level, the time as a key
   * and the text as the message, for logback to write.
   */
  public static Consumer<StderrLine> mirrorLines() {
    org.slf4j.Logger logger = factory().getLogger(MIRROR);
    return line ->
        logger.atLevel(level(line.level())).addKeyValue(TIME, line.time()).log(line.what());
  }

  /**
   * Sets logback up for a run: from {@code xml} when that file exists, in code otherwise, the lines
   * going to {@code err}. A file logback cannot use is said on {@code err}, in one line, and the
   * in-code set-up is used instead: logging never stops a boot.
   *
   * @param environment where {@code JOURNAL_STREAM} is read from
   */
  public static void configure(Path xml, PrintStream err, Map<String, String> environment) {
    if (!(factory() instanceof LoggerContext context)) {
      return; // another backend: it is configured its own way
    }
    context.reset();
    early = null;
    if (Files.isRegularFile(xml)) {
      String problem = fromFile(context, xml);
      if (problem == null) {
        return;
      }
      err.println("kvprov: " + xml + " was not used: " + problem + "; logging as built in");
      context.reset();
    }
    inCode(context, err, StderrLine.stderrIsJournal(environment));
  }

  /** The first error logback had configuring from the file, or null if it had none. */
  private static String fromFile(LoggerContext context, Path xml) {
    long since = System.currentTimeMillis();
    JoranConfigurator joran = new JoranConfigurator();
    joran.setContext(context);
    try {
      joran.doConfigure(xml.toFile());
    } catch (JoranException e) {
      // the status list below says why, in logback's words
    }
    return context.getStatusManager().getCopyOfStatusList().stream()
        .filter(s -> s.getLevel() == Status.ERROR && s.getTimestamp() >= since)
        .map(s -> s.getMessage().lines().findFirst().orElse("").strip())
        .findFirst()
        .orElse(null);
  }

  /**
   * The built-in set-up: kvprov's lines on {@code err}, and the root logger's events there too
   * until {@link #sendTo} hands them to the telemetry.
   */
  static void inCode(LoggerContext context, PrintStream err, boolean journal) {
    early = appenders(context, err, journal);
  }

  /** {@link #inCode}'s set-up, its appender returned (for the warm-up, which keeps none). */
  private static Appender<ILoggingEvent> appenders(
      LoggerContext context, PrintStream err, boolean journal) {
    StderrLayout layout = new StderrLayout();
    layout.setContext(context);
    layout.setJournal(journal);
    layout.start();
    LayoutWrappingEncoder<ILoggingEvent> encoder = new LayoutWrappingEncoder<>();
    encoder.setContext(context);
    encoder.setLayout(layout);
    encoder.setCharset(UTF_8);
    encoder.start();
    OutputStreamAppender<ILoggingEvent> stderr = new OutputStreamAppender<>();
    stderr.setContext(context);
    stderr.setName("stderr");
    stderr.setEncoder(encoder);
    stderr.setOutputStream(new Unclosed(err));
    stderr.start();

    Logger mirror = context.getLogger(MIRROR);
    mirror.setAdditive(false);
    mirror.setLevel(Level.ALL); // the mirror keeps to its own threshold (stderr_level)
    mirror.addAppender(stderr);
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.INFO);
    root.addAppender(stderr);
    return stderr;
  }

  /**
   * From now on, the events of every logger but {@link #MIRROR} become log records of {@code
   * telemetry}, in the span current where they happen: they reach KVP, OTLP and the mirror,
   * redacted. With the in-code set-up they stop going to stderr directly (the mirror shows them);
   * an earlier telemetry's appender is replaced.
   */
  public static void sendTo(KvpTelemetry telemetry) {
    if (!(factory() instanceof LoggerContext context)) {
      return;
    }
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.detachAppender(OtelLogAppender.NAME);
    OtelLogAppender appender =
        new OtelLogAppender(telemetry.openTelemetry().getLogsBridge(), MIRROR);
    appender.setContext(context);
    appender.start();
    root.addAppender(appender);
    Appender<ILoggingEvent> direct = early;
    if (direct != null) {
      root.detachAppender(direct);
    }
  }

  /**
   * SLF4J's logger factory: logback's context. Asked under one lock, because SLF4J answers a thread
   * that asks while another is still finding the backend with a stand-in factory, not logback's —
   * and the warm-up thread ({@link #warmUp}) may be the one finding it.
   */
  private static ILoggerFactory factory() {
    synchronized (STARTING) {
      return LoggerFactory.getILoggerFactory();
    }
  }

  /**
   * Finds and starts logback ahead of {@link #configure}, on another thread, and runs an event
   * through the in-code set-up built on a throwaway context that writes nowhere: the classes a
   * first boot's logging needs are then loaded and initialised. Nothing of the process's logging is
   * changed but what finding the backend does anyway.
   */
  public static void warmUp() {
    factory();
    LoggerContext context = new LoggerContext();
    appenders(context, new PrintStream(OutputStream.nullOutputStream()), false);
    context.getLogger(MIRROR).atInfo().addKeyValue(TIME, "0.000s").log("warm-up");
    context.getLogger(Logging.class).info("warm-up");
    context.stop();
  }

  /** The time key of a mirror event, or null for any other event. */
  static String time(ILoggingEvent event) {
    if (event.getKeyValuePairs() != null) {
      for (KeyValuePair pair : event.getKeyValuePairs()) {
        if (pair.key.equals(TIME) && pair.value != null) {
          return pair.value.toString();
        }
      }
    }
    return null;
  }

  private static org.slf4j.event.Level level(dev.kvprov.otel.KvprovRecord.Level level) {
    return switch (level) {
      case DEBUG -> org.slf4j.event.Level.DEBUG;
      case INFO -> org.slf4j.event.Level.INFO;
      case WARN -> org.slf4j.event.Level.WARN;
      case ERROR -> org.slf4j.event.Level.ERROR;
    };
  }

  /** The stream, left open when logback stops its appender (it is the process's stderr). */
  private static final class Unclosed extends FilterOutputStream {
    Unclosed(OutputStream out) {
      super(out);
    }

    @Override
    public void write(byte[] b, int off, int len) throws java.io.IOException {
      out.write(b, off, len);
    }

    @Override
    public void close() throws java.io.IOException {
      out.flush();
    }
  }
}
