package dev.kvprov.agent.certs;

import java.io.IOException;
import java.io.StringReader;
import java.util.Map;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.edec.EdECObjectIdentifiers;
import org.bouncycastle.asn1.x509.X509ObjectIdentifiers;
import org.bouncycastle.asn1.x9.X9ObjectIdentifiers;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.openssl.PEMParser;

/**
 * An SSH key as IMDS may send it: an x509 certificate in PEM ({@code -----BEGIN CERTIFICATE-----}),
 * whose key becomes an {@code authorized_keys} line the way the goal state's certificates do: RSA
 * only, as {@code ssh-rsa}. Like {@link CertificateKeys}, a way into Bouncy Castle: call it only
 * for such a key, so that the common boot never loads a class of it.
 */
public final class PemCertificate {
  /** The key kinds a certificate may hold that are not converted, named for the reason. */
  private static final Map<ASN1ObjectIdentifier, String> OTHER_KEYS =
      Map.of(
          X9ObjectIdentifiers.id_ecPublicKey, "an EC key",
          EdECObjectIdentifiers.id_Ed25519, "an Ed25519 key",
          X9ObjectIdentifiers.id_dsa, "a DSA key",
          X509ObjectIdentifiers.id_ea_rsa, "an RSA key of an unusual encoding");

  private PemCertificate() {}

  /**
   * {@code ssh-rsa AAAA…} for the RSA key of the one certificate in {@code pem} (line breaks of any
   * kind allowed, as PEM has them).
   *
   * @throws CertificatesException saying in one line why not: no readable certificate, more than
   *     one, or a key that is not RSA
   */
  public static String openSsh(String pem) throws CertificatesException {
    try (PEMParser parser = new PEMParser(new StringReader(pem))) {
      Object first = parser.readObject();
      if (!(first instanceof X509CertificateHolder holder)) {
        throw new CertificatesException("the PEM text holds no x509 certificate");
      }
      if (parser.readObject() != null) {
        throw new CertificatesException("the PEM text holds more than one block");
      }
      Certificate certificate = Certificate.of(holder);
      ASN1ObjectIdentifier algorithm = certificate.publicKey().getAlgorithm().getAlgorithm();
      return certificate
          .openSsh()
          .orElseThrow(
              () ->
                  new CertificatesException(
                      "the x509 certificate holds "
                          + OTHER_KEYS.getOrDefault(algorithm, "a key of type " + algorithm)
                          + "; only an RSA key in a certificate is converted"));
    } catch (IOException | RuntimeException e) {
      // Bouncy Castle reports malformed PEM and ASN.1 with unchecked exceptions too.
      throw new CertificatesException(
          "the x509 certificate cannot be read: " + oneLine(e.getMessage()), e);
    }
  }

  private static String oneLine(String message) {
    return message == null ? "malformed" : message.replaceAll("\\s+", " ").strip();
  }
}
