package dev.kvprov.agent.certs;

import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import org.bouncycastle.asn1.pkcs.ContentInfo;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.RSAPublicKey;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.pkcs.PKCS12PfxPdu;
import org.bouncycastle.pkcs.PKCS12SafeBag;
import org.bouncycastle.pkcs.PKCS12SafeBagFactory;
import org.bouncycastle.pkcs.PKCSException;

/**
 * The certificates of a password-less PKCS#12 (PFX), as the goal state delivers them. Only
 * certificate bags are opened; a private key bag is never decrypted.
 */
final class PfxCertificates {
  /**
   * One certificate.
   *
   * @param thumbprint the SHA-1 of its DER, upper-case hex (as ovf-env.xml's {@code Fingerprint})
   * @param publicKey its subject's public key
   */
  record Certificate(String thumbprint, SubjectPublicKeyInfo publicKey) {
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
  }

  private PfxCertificates() {}

  /** Every certificate in {@code pfx}, in order. */
  static List<Certificate> read(byte[] pfx) throws CertificatesException {
    CertificatesException first = null;
    for (byte[] password : PfxDecryption.NO_PASSWORD) {
      try {
        return read(pfx, new PfxDecryption(password));
      } catch (CertificatesException e) {
        // the other encoding of "no password" may open it
        first = first == null ? e : first;
      }
    }
    throw first;
  }

  private static List<Certificate> read(byte[] pfx, PfxDecryption decryption)
      throws CertificatesException {
    List<Certificate> certificates = new ArrayList<>();
    try {
      PKCS12PfxPdu pdu = new PKCS12PfxPdu(pfx);
      for (ContentInfo info : pdu.getContentInfos()) {
        PKCS12SafeBagFactory bags =
            info.getContentType().equals(PKCSObjectIdentifiers.encryptedData)
                ? new PKCS12SafeBagFactory(info, decryption)
                : new PKCS12SafeBagFactory(info);
        for (PKCS12SafeBag bag : bags.getSafeBags()) {
          if (bag.getType().equals(PKCSObjectIdentifiers.certBag)
              && bag.getBagValue() instanceof X509CertificateHolder certificate) {
            certificates.add(
                new Certificate(
                    thumbprint(certificate.getEncoded()), certificate.getSubjectPublicKeyInfo()));
          }
        }
      }
    } catch (IOException | PKCSException | RuntimeException e) {
      // Bouncy Castle reports malformed ASN.1 with unchecked exceptions too.
      throw new CertificatesException(
          "the decrypted certificates are not a readable PKCS#12 file: " + e.getMessage(), e);
    }
    return certificates;
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
