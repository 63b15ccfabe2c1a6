package dev.kvprov.otel;

import java.io.EOFException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.util.Locale;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;

/**
 * Why a network exchange failed, in the words a person uses ("connection refused", "TLS handshake
 * failed: the server's certificate is not trusted"), never a Java class name: for the agent's spans
 * and reports, the telemetry's failure lines and {@code kvp export}.
 */
public final class NetworkErrors {
  private NetworkErrors() {}

  /** The failure, or the first cause along its chain that says what happened. */
  public static String describe(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String words = words(t);
      if (words != null) {
        return words;
      }
    }
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String message = t.getMessage();
      if (message != null && !message.isBlank() && !looksLikeCode(message)) {
        return message.lines().findFirst().orElse("").strip();
      }
    }
    return "the connection failed";
  }

  private static String words(Throwable t) {
    String message = t.getMessage() == null ? "" : t.getMessage().toLowerCase(Locale.ROOT);
    if (t instanceof HttpConnectTimeoutException) {
      return "connection timed out";
    }
    if (t instanceof HttpTimeoutException || t instanceof SocketTimeoutException) {
      return message.isBlank() || looksLikeCode(message) ? "timed out" : t.getMessage();
    }
    if (t instanceof NoRouteToHostException || message.contains("no route to host")) {
      return "no route to host";
    }
    if (message.contains("network is unreachable")) {
      return "network unreachable"; // before DHCP has given an address, say
    }
    if (t instanceof ConnectException) {
      return message.contains("timed out") ? "connection timed out" : "connection refused";
    }
    if (t instanceof UnknownHostException || t instanceof UnresolvedAddressException) {
      return "unknown host";
    }
    if (t instanceof SSLHandshakeException) {
      return message.contains("pkix") || message.contains("certificat")
          ? "TLS handshake failed: the server's certificate is not trusted"
          : "TLS handshake failed";
    }
    if (t instanceof SSLException) {
      return message.contains("plaintext") || message.contains("unrecognized ssl message")
          ? "TLS handshake failed: the server does not speak TLS"
          : "TLS failed";
    }
    if (t instanceof EOFException || message.contains("connection reset")) {
      return "the connection closed early";
    }
    return null;
  }

  /** A message that names Java types says nothing a reader can act on. */
  static boolean looksLikeCode(String message) {
    String m = message.toLowerCase(Locale.ROOT);
    return m.contains("java.")
        || m.contains("javax.")
        || m.contains("exception")
        || m.contains("dev.kvprov")
        || m.contains("io.opentelemetry");
  }
}
