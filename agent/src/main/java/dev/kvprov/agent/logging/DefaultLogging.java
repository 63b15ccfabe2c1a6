package dev.kvprov.agent.logging;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.core.spi.ContextAwareBase;
import dev.kvprov.otel.StderrLine;

/**
 * logback's set-up until the agent makes its own ({@link Logging#configure}): kvprov's lines on
 * stderr, built in code. logback finds it through the ServiceLoader and then looks for no {@code
 * logback.xml} at all, so that no XML is read or parsed on the way to a boot.
 */
public final class DefaultLogging extends ContextAwareBase implements Configurator {
  /** For the ServiceLoader. */
  public DefaultLogging() {}

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    Logging.inCode(context, System.err, StderrLine.stderrIsJournal(System.getenv()));
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }
}
