package dev.kvprov.agent.config;

/**
 * A configuration the agent must not run with: names the file, the key and what is accepted, so an
 * image builder can fix it from the message alone.
 */
public final class ConfigException extends Exception {
  private static final long serialVersionUID = 1L;

  public ConfigException(String message) {
    super(message);
  }

  public ConfigException(String message, Throwable cause) {
    super(message, cause);
  }
}
