package dev.kvprov.agent.ovf;

/** The provisioning media could not be read or its ovf-env.xml is not one the agent can use. */
public final class OvfException extends Exception {
  private static final long serialVersionUID = 1L;

  public OvfException(String message) {
    super(message);
  }

  public OvfException(String message, Throwable cause) {
    super(message, cause);
  }
}
