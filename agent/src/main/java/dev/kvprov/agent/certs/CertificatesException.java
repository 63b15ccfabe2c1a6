package dev.kvprov.agent.certs;

/** The certificates could not be fetched, opened or read; the message says why, in one line. */
public final class CertificatesException extends Exception {
  private static final long serialVersionUID = 1L;

  CertificatesException(String message) {
    super(message);
  }

  CertificatesException(String message, Throwable cause) {
    super(message, cause);
  }
}
