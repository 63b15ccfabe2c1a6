package dev.kvprov.agent.certs;

import java.io.IOException;
import java.math.BigInteger;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import org.bouncycastle.asn1.DERNull;
import org.bouncycastle.asn1.nist.NISTObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cms.CMSEnvelopedData;
import org.bouncycastle.cms.CMSException;
import org.bouncycastle.cms.RecipientInformation;
import org.bouncycastle.cms.bc.BcRSAKeyTransEnvelopedRecipient;
import org.bouncycastle.crypto.AsymmetricCipherKeyPair;
import org.bouncycastle.crypto.DataLengthException;
import org.bouncycastle.crypto.generators.RSAKeyPairGenerator;
import org.bouncycastle.crypto.params.RSAKeyGenerationParameters;
import org.bouncycastle.crypto.util.SubjectPublicKeyInfoFactory;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.bc.BcRSAContentSignerBuilder;

/**
 * This boot's transport key: an RSA key pair and a self-signed certificate for it, which the
 * wireserver encrypts the goal state's certificates to. The private key lives in this object's
 * memory only, never on disk or in telemetry. Bouncy Castle's lightweight API throughout: no JCA
 * provider is registered or needed. (Public for the simulator, whose certificates are made alike.)
 */
public final class TransportKey {
  private static final int BITS = 2048;
  private static final X500Name NAME = new X500Name("CN=kvprov transport");

  private final AsymmetricCipherKeyPair keys;
  private final X509CertificateHolder certificate;

  private TransportKey(AsymmetricCipherKeyPair keys, X509CertificateHolder certificate) {
    this.keys = keys;
    this.certificate = certificate;
  }

  /** A fresh key pair and its certificate, valid from an hour ago (clock skew) for a day. */
  public static TransportKey create() throws CertificatesException {
    SecureRandom random = new SecureRandom();
    RSAKeyPairGenerator generator = new RSAKeyPairGenerator();
    generator.init(new RSAKeyGenerationParameters(BigInteger.valueOf(65537), random, BITS, 100));
    AsymmetricCipherKeyPair keys = generator.generateKeyPair();
    Instant now = Instant.now();
    try {
      X509CertificateHolder certificate =
          new X509v3CertificateBuilder(
                  NAME,
                  new BigInteger(63, random).add(BigInteger.ONE),
                  Date.from(now.minus(Duration.ofHours(1))),
                  Date.from(now.plus(Duration.ofDays(1))),
                  NAME,
                  SubjectPublicKeyInfoFactory.createSubjectPublicKeyInfo(keys.getPublic()))
              .build(
                  new BcRSAContentSignerBuilder(
                          new AlgorithmIdentifier(
                              PKCSObjectIdentifiers.sha256WithRSAEncryption, DERNull.INSTANCE),
                          new AlgorithmIdentifier(NISTObjectIdentifiers.id_sha256))
                      .build(keys.getPrivate()));
      return new TransportKey(keys, certificate);
    } catch (IOException | OperatorCreationException e) {
      throw new CertificatesException(
          "cannot make the transport certificate: " + e.getMessage(), e);
    }
  }

  /** The certificate as the wireserver's header wants it: base64 DER, no PEM armour. */
  public String certificateHeader() throws CertificatesException {
    try {
      return Base64.getEncoder().encodeToString(certificate.getEncoded());
    } catch (IOException e) {
      throw new CertificatesException("cannot encode the transport certificate", e);
    }
  }

  /** The content of a CMS EnvelopedData (DER) encrypted to this key. */
  byte[] decrypt(byte[] envelopedData) throws CertificatesException {
    CMSEnvelopedData envelope;
    try {
      envelope = new CMSEnvelopedData(envelopedData);
    } catch (CMSException e) {
      throw new CertificatesException(
          "the certificates are not a CMS enveloped message: " + e.getMessage(), e);
    }
    Exception last = null;
    // Tried in turn rather than looked up by issuer and serial: whichever way the wireserver
    // names the recipient, only the entry made for this key decrypts.
    for (RecipientInformation recipient : envelope.getRecipientInfos().getRecipients()) {
      try {
        return recipient.getContent(new BcRSAKeyTransEnvelopedRecipient(keys.getPrivate()));
      } catch (CMSException | DataLengthException e) {
        // An entry for another key may hold a number too large for this one's modulus: Bouncy
        // Castle then throws instead of failing the padding check.
        last = e;
      }
    }
    throw new CertificatesException(
        "the certificates cannot be decrypted with this boot's transport key"
            + (last == null ? ": the message has no recipient" : ": " + last.getMessage()),
        last);
  }
}
