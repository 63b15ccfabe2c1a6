package dev.kvprov.agent.certs;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * An RSA public key as one {@code authorized_keys} line, in the OpenSSH wire format (RFC 4253
 * §6.6): the string {@code ssh-rsa}, then the exponent and the modulus as mpints, each
 * length-prefixed.
 */
final class OpenSshKey {
  private static final String RSA = "ssh-rsa";

  private OpenSshKey() {}

  /** {@code ssh-rsa AAAA…} for the key ({@code exponent}, {@code modulus}). */
  static String rsa(BigInteger exponent, BigInteger modulus) {
    if (exponent.signum() <= 0 || modulus.signum() <= 0) {
      throw new IllegalArgumentException("an RSA key's exponent and modulus are positive");
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    string(out, RSA.getBytes(StandardCharsets.US_ASCII));
    // BigInteger's two's-complement bytes are an mpint's: minimal, with a leading zero byte
    // exactly when the top bit is set (RFC 4251 §5).
    string(out, exponent.toByteArray());
    string(out, modulus.toByteArray());
    return RSA + " " + Base64.getEncoder().encodeToString(out.toByteArray());
  }

  private static void string(ByteArrayOutputStream out, byte[] bytes) {
    int n = bytes.length;
    out.write(n >>> 24);
    out.write(n >>> 16);
    out.write(n >>> 8);
    out.write(n);
    out.writeBytes(bytes);
  }
}
