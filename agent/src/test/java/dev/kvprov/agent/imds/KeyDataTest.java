package dev.kvprov.agent.imds;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kvprov.agent.provision.steps.SshKey;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.Optional;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** keyData as IMDS sends it, with keys and certificates made here, checked by ssh-keygen too. */
class KeyDataTest {
  static final String PATH = "/home/azureuser/.ssh/authorized_keys";
  static final String ED25519 =
      "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJWinwTTXHx4k8EYR2dTCWR804bXaMPytqRjud+bfvbj"
          + " azureuser@workstation";

  static KeyPair rsa;
  static String rsaLine;

  @TempDir Path dir;

  @BeforeAll
  static void makeKey() throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
    generator.initialize(3072);
    rsa = generator.generateKeyPair();
    rsaLine = sshRsa((RSAPublicKey) rsa.getPublic()) + " generated-by-azure";
  }

  private static SshKey sent(String keyData) {
    return KeyData.sshKey(new ImdsInstance.PublicKey(keyData, PATH));
  }

  @Test
  void aKeyWrappedWithCrLfEvery64Characters_becomesOneLine() {
    String wrapped = wrap(rsaLine, "\r\n");
    assertThat(wrapped).contains("\r\n").doesNotEndWith("\r\n");

    SshKey key = sent(wrapped);

    assertThat(key.keyData()).isEqualTo(rsaLine);
    assertThat(key.problem()).isEmpty();
    assertThat(key.path()).contains(PATH);
  }

  @Test
  void aKeyWithATrailingCrLf_becomesOneLine() {
    assertThat(sent(ED25519 + "\r\n").keyData()).isEqualTo(ED25519);
    assertThat(sent(wrap(rsaLine, "\r\n") + "\r\n").keyData()).isEqualTo(rsaLine);
  }

  @ParameterizedTest
  @ValueSource(strings = {"\n", "\r"})
  void loneLineFeedsAndCarriageReturns_areRemovedToo(String lineBreak) {
    SshKey key = sent(wrap(rsaLine, lineBreak) + lineBreak);

    assertThat(key.keyData()).isEqualTo(rsaLine);
    assertThat(key.problem()).isEmpty();
  }

  @Test
  void aWellFormedLine_isLeftAsItIs() {
    assertThat(sent(ED25519)).isEqualTo(new SshKey(ED25519, Optional.of(PATH)));
  }

  @Test
  void aPemCertificate_becomesTheSshRsaLineOfItsKey() throws Exception {
    String pem = pem(certificate(rsa, "SHA256withRSA"), "\r\n");

    SshKey key = sent(pem);

    assertThat(key.problem()).isEmpty();
    assertThat(key.keyData()).isEqualTo(sshRsa((RSAPublicKey) rsa.getPublic()));
  }

  @Test
  void aPemCertificate_givesWhatSshKeygenMakesOfItsPublicKey() throws Exception {
    assumeTrue(
        Files.isExecutable(Path.of("/usr/bin/ssh-keygen")),
        "ssh-keygen is not installed (Debian package openssh-client)");
    Path spki = dir.resolve("key.pem");
    Files.writeString(
        spki,
        "-----BEGIN PUBLIC KEY-----\n"
            + Base64.getMimeEncoder(64, "\n".getBytes(UTF_8))
                .encodeToString(rsa.getPublic().getEncoded())
            + "\n-----END PUBLIC KEY-----\n");
    Process keygen =
        new ProcessBuilder("/usr/bin/ssh-keygen", "-i", "-m", "PKCS8", "-f", spki.toString())
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    String expected = new String(keygen.getInputStream().readAllBytes(), UTF_8).strip();
    assertThat(keygen.waitFor()).isZero();

    assertThat(sent(pem(certificate(rsa, "SHA256withRSA"), "\n")).keyData()).isEqualTo(expected);
  }

  @Test
  void anEcKeyInACertificate_isAnUnknownFormat_sayingWhy() throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"));
    String pem = pem(certificate(generator.generateKeyPair(), "SHA256withECDSA"), "\r\n");

    SshKey key = sent(pem);

    assertThat(key.problem())
        .contains(
            "the x509 certificate holds an EC key; only an RSA key in a certificate is converted");
    assertThat(key.path()).contains(PATH);
  }

  @Test
  void aBrokenCertificate_isUnusable_withAOneLineReason() {
    String pem =
        "-----BEGIN CERTIFICATE-----\r\nMIIBnotacertificate\r\n-----END CERTIFICATE-----\r\n";

    Optional<String> problem = sent(pem).problem();

    assertThat(problem).isPresent();
    assertThat(problem.get())
        .startsWith("the x509 certificate cannot be read")
        .doesNotContain("\n");
  }

  @Test
  void anotherPemBlock_isAnUnknownFormat() throws Exception {
    String pem =
        "-----BEGIN PUBLIC KEY-----\n"
            + Base64.getMimeEncoder().encodeToString(rsa.getPublic().getEncoded())
            + "\n-----END PUBLIC KEY-----\n";

    assertThat(sent(pem).problem())
        .contains(
            "a PEM block of type 'PUBLIC KEY', not an OpenSSH key line nor an x509 certificate");
  }

  @Test
  void garbage_isUnusable_quotingNoKeyMaterial() {
    assertThat(sent("not a key at all").problem())
        .contains("not one OpenSSH key line: unknown key type 'not'");
    assertThat(sent(null).problem()).contains("keyData is missing");
    assertThat(sent("ssh-rsa AAAA%%%%").problem())
        .contains("not one OpenSSH key line: the ssh-rsa key's data is not base64 after one space");
  }

  @Test
  void aLineWhoseDataIsOfAnotherType_isUnusable() {
    String mislabelled = ED25519.replace("ssh-ed25519 ", "ssh-rsa ");

    assertThat(sent(mislabelled).problem())
        .contains(
            "not one OpenSSH key line: the key says ssh-rsa but its data is of type 'ssh-ed25519'");
  }

  @Test
  void keysFromTwoLinesJoined_areNotMadeOneKey() {
    // Removing the line break must not turn two keys into one that installs: the second's type
    // lands in the first one's data, which then is not base64.
    SshKey key = sent("ssh-rsa AAAA\nssh-rsa BBBB");

    assertThat(key.problem()).isPresent();
  }

  /** {@code line} broken after every 64 characters, as the portal does. */
  static String wrap(String line, String lineBreak) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < line.length(); i += 64) {
      if (i > 0) {
        out.append(lineBreak);
      }
      out.append(line, i, Math.min(line.length(), i + 64));
    }
    return out.toString();
  }

  /** A self-signed certificate for {@code keys}, valid for a day. */
  static byte[] certificate(KeyPair keys, String signature) throws Exception {
    X500Name name = new X500Name("CN=portal key");
    Instant now = Instant.now();
    return new JcaX509v3CertificateBuilder(
            name,
            BigInteger.valueOf(now.toEpochMilli()),
            Date.from(now.minus(Duration.ofHours(1))),
            Date.from(now.plus(Duration.ofDays(1))),
            name,
            keys.getPublic())
        .build(new JcaContentSignerBuilder(signature).build(keys.getPrivate()))
        .getEncoded();
  }

  static String pem(byte[] der, String lineBreak) {
    return "-----BEGIN CERTIFICATE-----"
        + lineBreak
        + Base64.getMimeEncoder(64, lineBreak.getBytes(UTF_8)).encodeToString(der)
        + lineBreak
        + "-----END CERTIFICATE-----"
        + lineBreak;
  }

  /** {@code ssh-rsa} and the key in the SSH wire format (RFC 4253 §6.6), made here. */
  static String sshRsa(RSAPublicKey key) {
    byte[] type = "ssh-rsa".getBytes(UTF_8);
    byte[] e = key.getPublicExponent().toByteArray();
    byte[] n = key.getModulus().toByteArray();
    ByteBuffer blob = ByteBuffer.allocate(12 + type.length + e.length + n.length);
    blob.putInt(type.length).put(type).putInt(e.length).put(e).putInt(n.length).put(n);
    return "ssh-rsa " + Base64.getEncoder().encodeToString(blob.array());
  }
}
