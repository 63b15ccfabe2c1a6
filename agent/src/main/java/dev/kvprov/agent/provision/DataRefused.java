package dev.kvprov.agent.provision;

/**
 * What the platform asked for cannot be done, found before any step changed the machine: the
 * message is one plain line naming the field, and never quotes a secret.
 */
final class DataRefused extends Exception {
  private static final long serialVersionUID = 1L;

  DataRefused(String message) {
    super(message);
  }
}
