package dev.kvprov.agent.certs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.pkcs.ContentInfo;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
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
            certificates.add(Certificate.of(certificate));
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
}
