package dev.kvprov.agent.sim;

import dev.kvprov.agent.certs.CertificatesException;
import dev.kvprov.agent.certs.TransportKey;
import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cms.CMSAlgorithm;
import org.bouncycastle.cms.CMSEnvelopedDataGenerator;
import org.bouncycastle.cms.CMSException;
import org.bouncycastle.cms.CMSProcessableByteArray;
import org.bouncycastle.cms.bc.BcCMSContentEncryptorBuilder;
import org.bouncycastle.cms.bc.BcRSAKeyTransRecipientInfoGenerator;
import org.bouncycastle.crypto.engines.DESedeEngine;
import org.bouncycastle.crypto.modes.CBCBlockCipher;
import org.bouncycastle.pkcs.PKCS12PfxPduBuilder;
import org.bouncycastle.pkcs.PKCS12SafeBagBuilder;
import org.bouncycastle.pkcs.PKCSException;
import org.bouncycastle.pkcs.bc.BcPKCS12MacCalculatorBuilder;
import org.bouncycastle.pkcs.bc.BcPKCS12PBEOutputEncryptorBuilder;

/**
 * The goal state's certificates, as the wireserver serves them: one self-signed RSA certificate
 * (the "user's", whose key the media names by fingerprint) in a password-less PKCS#12, its
 * certificate bag encrypted as Windows does (PKCS#12 PBE, triple DES), the whole enveloped with CMS
 * to the transport certificate the agent sent.
 */
final class SimulatedCertificates {
  private final byte[] certificate;

  SimulatedCertificates() {
    try {
      certificate = Base64.getDecoder().decode(TransportKey.create().certificateHeader());
    } catch (CertificatesException e) {
      throw new IllegalStateException("the simulator cannot make its certificate", e);
    }
  }

  /** The certificate's DER. */
  byte[] certificate() {
    return certificate.clone();
  }

  /**
   * Its SHA-1 thumbprint, upper-case hex: the {@code Fingerprint} ovf-env.xml names it by. Computed
   * here, not with the agent's code: a test of the agent's match needs its own answer.
   */
  String thumbprint() {
    try {
      return HexFormat.of()
          .withUpperCase()
          .formatHex(MessageDigest.getInstance("SHA-1").digest(certificate));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-1", e);
    }
  }

  /**
   * The {@code CertificateFile} document for the agent that sent {@code transportCertificate}.
   *
   * @param cipher {@code DES_EDE3_CBC} or {@code AES128_CBC}
   * @throws IllegalArgumentException when the header is no certificate or the cipher is unknown
   */
  String document(String transportCertificate, String cipher) {
    ASN1ObjectIdentifier content =
        switch (cipher) {
          case "DES_EDE3_CBC" -> CMSAlgorithm.DES_EDE3_CBC;
          case "AES128_CBC" -> CMSAlgorithm.AES128_CBC;
          default -> throw new IllegalArgumentException("unknown cipher " + cipher);
        };
    try {
      X509CertificateHolder transport =
          new X509CertificateHolder(Base64.getDecoder().decode(transportCertificate));
      byte[] pfx =
          new PKCS12PfxPduBuilder()
              .addEncryptedData(
                  new BcPKCS12PBEOutputEncryptorBuilder(
                          PKCSObjectIdentifiers.pbeWithSHAAnd3_KeyTripleDES_CBC,
                          CBCBlockCipher.newInstance(new DESedeEngine()))
                      .build(new char[0]),
                  new PKCS12SafeBagBuilder(new X509CertificateHolder(certificate)).build())
              .build(new BcPKCS12MacCalculatorBuilder(), new char[0])
              .getEncoded();
      CMSEnvelopedDataGenerator envelope = new CMSEnvelopedDataGenerator();
      envelope.addRecipientInfoGenerator(new BcRSAKeyTransRecipientInfoGenerator(transport));
      byte[] enveloped =
          envelope
              .generate(
                  new CMSProcessableByteArray(pfx),
                  new BcCMSContentEncryptorBuilder(content).build())
              .getEncoded();
      return "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<CertificateFile>"
          + "<Version>2012-11-30</Version><Incarnation>1</Incarnation>"
          + "<Format>Pkcs7BlobWithPfxContents</Format><Data>"
          + Base64.getMimeEncoder().encodeToString(enveloped)
          + "</Data></CertificateFile>\n";
    } catch (IOException | PKCSException | CMSException | IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "cannot envelope to that certificate: " + e.getMessage(), e);
    }
  }
}
