package dev.kvprov.agent.certs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The transport certificate as the real openssl sees it, and what openssl encrypts to it. */
class TransportKeyTest {
  @TempDir Path dir;

  private void writeCertificate(TransportKey key) throws Exception {
    Files.writeString(
        dir.resolve("transport.crt"),
        Tools.pem("CERTIFICATE", Base64.getDecoder().decode(key.certificateHeader())));
  }

  /** {@code text} enveloped by openssl to transport.crt with {@code cipher}, as DER. */
  private byte[] envelope(String cipher, String text) throws Exception {
    Files.writeString(dir.resolve("secret.txt"), text);
    Tools.run(
        dir,
        "openssl",
        "cms",
        "-encrypt",
        cipher,
        "-in",
        "secret.txt",
        "-binary",
        "-outform",
        "DER",
        "-out",
        "message.der",
        "transport.crt");
    return Files.readAllBytes(dir.resolve("message.der"));
  }

  @Test
  void certificateHeader_isBase64Der_ofASelfSignedRsaCertificateOpensslVerifies() throws Exception {
    TransportKey key = TransportKey.create();
    assertThat(key.certificateHeader()).doesNotContain("-----", "\n").startsWith("MII");
    writeCertificate(key);

    String text = Tools.run(dir, "openssl", "x509", "-in", "transport.crt", "-noout", "-text");
    assertThat(text).contains("Public-Key: (2048 bit)").contains("Subject: CN = kvprov transport");
    assertThat(
            Tools.run(
                dir,
                "openssl",
                "verify",
                "-CAfile",
                "transport.crt",
                "-no_check_time",
                "transport.crt"))
        .contains("transport.crt: OK");
  }

  @ParameterizedTest
  @ValueSource(strings = {"-des3", "-aes128"})
  void decrypt_opensAMessageOpensslEnvelopedToTheCertificate(String cipher) throws Exception {
    TransportKey key = TransportKey.create();
    writeCertificate(key);

    byte[] content = key.decrypt(envelope(cipher, "the goal state's certificates"));

    assertThat(new String(content, StandardCharsets.UTF_8))
        .isEqualTo("the goal state's certificates");
  }

  @Test
  void decrypt_refusesAMessageForAnotherKey_inPlainWords() throws Exception {
    TransportKey other = TransportKey.create();
    writeCertificate(other);
    byte[] message = envelope("-des3", "not for this boot");

    assertThatThrownBy(() -> TransportKey.create().decrypt(message))
        .isInstanceOf(CertificatesException.class)
        .hasMessageStartingWith(
            "the certificates cannot be decrypted with this boot's transport key");
    assertThatThrownBy(() -> TransportKey.create().decrypt(new byte[] {1, 2, 3}))
        .isInstanceOf(CertificatesException.class)
        .hasMessageStartingWith("the certificates are not a CMS enveloped message");
  }
}
