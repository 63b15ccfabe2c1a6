package dev.kvprov.agent.imds;

/**
 * IMDS could not be used: it never answered well within the deadline, or it answered with data the
 * agent must not act on. The message is fit for the provisioning report.
 */
public final class ImdsException extends Exception {
  private static final long serialVersionUID = 1L;

  private final int attempts;
  private final boolean refused;
  private final boolean valuesRefused;

  public ImdsException(String message, int attempts, Throwable cause) {
    this(message, attempts, cause, false);
  }

  /**
   * @param refused whether IMDS did answer, and either refused for good (400, 403) or sent values
   *     the agent must not act on — as against no usable answer at all
   */
  public ImdsException(String message, int attempts, Throwable cause, boolean refused) {
    this(message, attempts, cause, refused, false);
  }

  private ImdsException(
      String message, int attempts, Throwable cause, boolean refused, boolean valuesRefused) {
    super(message, cause);
    this.attempts = attempts;
    this.refused = refused;
    this.valuesRefused = valuesRefused;
  }

  /**
   * IMDS answered well-formed metadata, but a value in it cannot be carried out (a user or host
   * name, a key's path): the message names the field.
   */
  public static ImdsException valuesRefused(String message, int attempts) {
    return new ImdsException(message, attempts, null, true, true);
  }

  /**
   * Whether IMDS answered, and the answer named what cannot be done: provisioning reports it as the
   * platform's data refused, like a field of the media, not as IMDS failing.
   */
  public boolean valuesRefused() {
    return valuesRefused;
  }

  /**
   * Whether IMDS answered and refused, or answered with values the agent must not act on: a
   * decision, which the media must not overrule (unlike no usable answer at all).
   */
  public boolean refused() {
    return refused;
  }

  /** How many requests were made. */
  public int attempts() {
    return attempts;
  }
}
