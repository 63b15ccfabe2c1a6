package dev.kvprov.agent.wireserver;

/** The health report did not reach the platform within the deadline. */
public final class WireserverException extends Exception {
  private static final long serialVersionUID = 1L;

  public WireserverException(String message) {
    super(message);
  }
}
