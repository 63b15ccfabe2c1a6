package dev.kvprov.agent.certs;

import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.RSAPublicKey;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;

/**
 * An x509 certificate that stands for an SSH key, whether the goal state's PKCS#12 or IMDS's PEM
 * delivered it.
 *
 * @param thumbprint the SHA-1 of its DER, upper-case hex (as ovf-env.xml's {@code Fingerprint})
 * @param publicKey its subject's public key
 */
record Certificate(String thumbprint, SubjectPublicKeyInfo publicKey) {

  static Certificate of(X509CertificateHolder certificate) throws IOException {
    return new Certificate(
        thumbprint(certificate.getEncoded()), certificate.getSubjectPublicKeyInfo());
  }

  /** The key as an {@code authorized_keys} line, when it is an RSA key. */
  Optional<String> openSsh() throws CertificatesException {
    if (!publicKey.getAlgorithm().getAlgorithm().equals(PKCSObjectIdentifiers.rsaEncryption)) {
      return Optional.empty();
    }
    try {
      RSAPublicKey rsa = RSAPublicKey.getInstance(publicKey.parsePublicKey());
      return Optional.of(OpenSshKey.rsa(rsa.getPublicExponent(), rsa.getModulus()));
    } catch (IOException | IllegalArgumentException e) {
      throw new CertificatesException(
          "the certificate with fingerprint " + thumbprint + " has an unreadable RSA key", e);
    }
  }

  static String thumbprint(byte[] der) {
    try {
      return HexFormat.of()
          .withUpperCase()
          .formatHex(MessageDigest.getInstance("SHA-1").digest(der));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-1", e);
    }
  }
}
