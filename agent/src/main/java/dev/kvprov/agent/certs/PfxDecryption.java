package dev.kvprov.agent.certs;

import java.io.InputStream;
import java.util.List;
import java.util.function.Supplier;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.nist.NISTObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PBES2Parameters;
import org.bouncycastle.asn1.pkcs.PBKDF2Params;
import org.bouncycastle.asn1.pkcs.PKCS12PBEParams;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.crypto.BlockCipher;
import org.bouncycastle.crypto.BufferedBlockCipher;
import org.bouncycastle.crypto.CipherParameters;
import org.bouncycastle.crypto.Digest;
import org.bouncycastle.crypto.engines.AESEngine;
import org.bouncycastle.crypto.engines.DESedeEngine;
import org.bouncycastle.crypto.engines.RC2Engine;
import org.bouncycastle.crypto.generators.PKCS12ParametersGenerator;
import org.bouncycastle.crypto.generators.PKCS5S2ParametersGenerator;
import org.bouncycastle.crypto.io.CipherInputStream;
import org.bouncycastle.crypto.modes.CBCBlockCipher;
import org.bouncycastle.crypto.paddings.PKCS7Padding;
import org.bouncycastle.crypto.paddings.PaddedBufferedBlockCipher;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.crypto.params.ParametersWithIV;
import org.bouncycastle.crypto.util.DigestFactory;
import org.bouncycastle.operator.InputDecryptor;
import org.bouncycastle.operator.InputDecryptorProvider;
import org.bouncycastle.operator.OperatorCreationException;

/**
 * Opens the encrypted contents of a PFX that has no password, in the encryptions Windows and
 * OpenSSL write: PKCS#12 PBE (triple DES, RC2) and PBES2 (PBKDF2 with AES or triple DES).
 *
 * <p>"No password" has two encodings for PKCS#12 key derivation, and the platform's files may use
 * either: no bytes at all (the standard's, and Bouncy Castle's for an empty password), or a lone
 * BMPString terminator (OpenSSL's and Windows' empty string). Bouncy Castle's own decryptor knows
 * only the first, so the derivation takes the bytes themselves here.
 */
final class PfxDecryption implements InputDecryptorProvider {
  /** The encodings of "no password" to try, in order. */
  static final List<byte[]> NO_PASSWORD = List.of(new byte[0], new byte[2]);

  private final byte[] pkcs12Password;

  PfxDecryption(byte[] pkcs12Password) {
    this.pkcs12Password = pkcs12Password.clone();
  }

  @Override
  public InputDecryptor get(AlgorithmIdentifier algorithm) throws OperatorCreationException {
    BufferedBlockCipher cipher;
    try {
      cipher =
          algorithm.getAlgorithm().equals(PKCSObjectIdentifiers.id_PBES2)
              ? pbes2(PBES2Parameters.getInstance(algorithm.getParameters()))
              : pkcs12(
                  algorithm.getAlgorithm(), PKCS12PBEParams.getInstance(algorithm.getParameters()));
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new OperatorCreationException(
          "the encryption " + algorithm.getAlgorithm() + " has unreadable parameters", e);
    }
    return new InputDecryptor() {
      @Override
      public AlgorithmIdentifier getAlgorithmIdentifier() {
        return algorithm;
      }

      @Override
      public InputStream getInputStream(InputStream encrypted) {
        return new CipherInputStream(encrypted, cipher);
      }
    };
  }

  private BufferedBlockCipher pkcs12(ASN1ObjectIdentifier oid, PKCS12PBEParams params)
      throws OperatorCreationException {
    Supplier<BlockCipher> engine;
    int keyBits;
    if (oid.equals(PKCSObjectIdentifiers.pbeWithSHAAnd3_KeyTripleDES_CBC)) {
      engine = DESedeEngine::new;
      keyBits = 192;
    } else if (oid.equals(PKCSObjectIdentifiers.pbeWithSHAAnd2_KeyTripleDES_CBC)) {
      engine = DESedeEngine::new;
      keyBits = 128;
    } else if (oid.equals(PKCSObjectIdentifiers.pbeWithSHAAnd128BitRC2_CBC)) {
      engine = RC2Engine::new;
      keyBits = 128;
    } else if (oid.equals(PKCSObjectIdentifiers.pbeWithSHAAnd40BitRC2_CBC)) {
      engine = RC2Engine::new;
      keyBits = 40;
    } else {
      throw new OperatorCreationException("the PFX encryption " + oid + " is not one kvprov reads");
    }
    PKCS12ParametersGenerator generator = new PKCS12ParametersGenerator(DigestFactory.createSHA1());
    generator.init(pkcs12Password, params.getIV(), params.getIterations().intValueExact());
    return cbc(engine.get(), generator.generateDerivedParameters(keyBits, 64));
  }

  /** PBKDF2 takes the password's UTF-8 bytes: none, whichever PKCS#12 encoding is tried. */
  private static BufferedBlockCipher pbes2(PBES2Parameters params)
      throws OperatorCreationException {
    PBKDF2Params kdf = PBKDF2Params.getInstance(params.getKeyDerivationFunc().getParameters());
    ASN1ObjectIdentifier scheme = params.getEncryptionScheme().getAlgorithm();
    byte[] iv =
        ASN1OctetString.getInstance(params.getEncryptionScheme().getParameters()).getOctets();
    BlockCipher engine;
    int keyBytes;
    if (scheme.equals(NISTObjectIdentifiers.id_aes128_CBC)) {
      engine = AESEngine.newInstance();
      keyBytes = 16;
    } else if (scheme.equals(NISTObjectIdentifiers.id_aes192_CBC)) {
      engine = AESEngine.newInstance();
      keyBytes = 24;
    } else if (scheme.equals(NISTObjectIdentifiers.id_aes256_CBC)) {
      engine = AESEngine.newInstance();
      keyBytes = 32;
    } else if (scheme.equals(PKCSObjectIdentifiers.des_EDE3_CBC)) {
      engine = new DESedeEngine();
      keyBytes = 24;
    } else {
      throw new OperatorCreationException(
          "the PFX encryption scheme " + scheme + " is not one kvprov reads");
    }
    PKCS5S2ParametersGenerator generator = new PKCS5S2ParametersGenerator(prf(kdf));
    generator.init(new byte[0], kdf.getSalt(), kdf.getIterationCount().intValueExact());
    KeyParameter key = (KeyParameter) generator.generateDerivedParameters(keyBytes * 8);
    return cbc(engine, new ParametersWithIV(key, iv));
  }

  private static Digest prf(PBKDF2Params kdf) throws OperatorCreationException {
    ASN1ObjectIdentifier prf = kdf.getPrf().getAlgorithm();
    if (prf.equals(PKCSObjectIdentifiers.id_hmacWithSHA1)) {
      return DigestFactory.createSHA1();
    } else if (prf.equals(PKCSObjectIdentifiers.id_hmacWithSHA256)) {
      return DigestFactory.createSHA256();
    } else if (prf.equals(PKCSObjectIdentifiers.id_hmacWithSHA384)) {
      return DigestFactory.createSHA384();
    } else if (prf.equals(PKCSObjectIdentifiers.id_hmacWithSHA512)) {
      return DigestFactory.createSHA512();
    }
    throw new OperatorCreationException(
        "the PFX key derivation " + prf + " is not one kvprov reads");
  }

  private static BufferedBlockCipher cbc(BlockCipher engine, CipherParameters key) {
    PaddedBufferedBlockCipher cipher =
        new PaddedBufferedBlockCipher(CBCBlockCipher.newInstance(engine), new PKCS7Padding());
    cipher.init(false, key);
    return cipher;
  }
}
