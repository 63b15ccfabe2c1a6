package dev.kvprov.agent.provision;

/** A pre-provisioned VM of a kind kvprov cannot handle, or whose wait could not be begun. */
final class PreprovisioningException extends Exception {
  private static final long serialVersionUID = 1L;

  PreprovisioningException(String message) {
    super(message);
  }
}
