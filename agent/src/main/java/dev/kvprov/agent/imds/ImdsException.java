package dev.kvprov.agent.imds;

/**
 * IMDS could not be used: it never answered well within the deadline, or it answered with data the
 * agent must not act on. The message is fit for the provisioning report.
 */
public final class ImdsException extends Exception {
  private static final long serialVersionUID = 1L;

  private final int attempts;

  public ImdsException(String message, int attempts, Throwable cause) {
    super(message, cause);
    this.attempts = attempts;
  }

  /** How many requests were made. */
  public int attempts() {
    return attempts;
  }
}
