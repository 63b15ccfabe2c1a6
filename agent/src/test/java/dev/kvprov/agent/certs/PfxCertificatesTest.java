package dev.kvprov.agent.certs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Password-less PKCS#12 files made by the real openssl, in each of its encryptions. */
class PfxCertificatesTest {
  @TempDir Path dir;

  /** A self-signed certificate {@code name}.crt for a new key, by default RSA. */
  private void certificate(String name, String... key) throws Exception {
    List<String> command = new ArrayList<>(List.of("openssl", "req", "-x509"));
    command.addAll(key.length == 0 ? List.of("-newkey", "rsa:2048") : List.of(key));
    command.addAll(
        List.of(
            "-nodes",
            "-keyout",
            name + ".key",
            "-out",
            name + ".crt",
            "-days",
            "1",
            "-subj",
            "/CN=" + name));
    Tools.run(dir, command.toArray(String[]::new));
  }

  private String opensslThumbprint(String name) throws Exception {
    // "SHA1 Fingerprint=3A:4F:…"
    String line =
        Tools.run(dir, "openssl", "x509", "-in", name + ".crt", "-noout", "-fingerprint", "-sha1");
    return line.substring(line.indexOf('=') + 1).strip().replace(":", "");
  }

  private String opensslKey(String name) throws Exception {
    Tools.run(dir, "openssl", "x509", "-in", name + ".crt", "-noout", "-pubkey", "-out", "pub.pem");
    return Tools.run(dir, "ssh-keygen", "-i", "-m", "PKCS8", "-f", "pub.pem").strip();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "-certpbe PBE-SHA1-3DES",
        "-legacy",
        "-certpbe AES-256-CBC",
        "-certpbe NONE",
        "-certpbe PBE-SHA1-3DES -inkey first.key -keypbe PBE-SHA1-3DES"
      })
  void read_findsEveryCertificate_withOpensslsThumbprint_andKey(String options) throws Exception {
    certificate("first");
    certificate("second");
    Files.writeString(
        dir.resolve("both.crt"),
        Files.readString(dir.resolve("first.crt")) + Files.readString(dir.resolve("second.crt")));
    List<String> command =
        new ArrayList<>(
            List.of("openssl", "pkcs12", "-export", "-in", "both.crt", "-passout", "pass:"));
    command.addAll(List.of(options.split(" ")));
    if (!options.contains("-inkey")) {
      command.add("-nokeys");
    }
    command.addAll(List.of("-out", "bundle.pfx"));
    Tools.run(dir, command.toArray(String[]::new));

    List<Certificate> read = PfxCertificates.read(Files.readAllBytes(dir.resolve("bundle.pfx")));

    assertThat(read)
        .extracting(Certificate::thumbprint)
        .containsExactlyInAnyOrder(opensslThumbprint("first"), opensslThumbprint("second"));
    for (Certificate certificate : read) {
      String name =
          certificate.thumbprint().equals(opensslThumbprint("first")) ? "first" : "second";
      assertThat(certificate.openSsh()).contains(opensslKey(name));
    }
  }

  @Test
  void read_refusesWhatIsNoPkcs12_inPlainWords() {
    assertThatThrownBy(() -> PfxCertificates.read(new byte[] {0x30, 0x03, 0x02, 0x01, 0x05}))
        .isInstanceOf(CertificatesException.class)
        .hasMessageStartingWith("the decrypted certificates are not a readable PKCS#12 file");
  }

  @Test
  void openSsh_isEmptyForAKeyThatIsNotRsa() throws Exception {
    certificate("ec", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256");
    Tools.run(
        dir,
        "openssl",
        "pkcs12",
        "-export",
        "-in",
        "ec.crt",
        "-nokeys",
        "-passout",
        "pass:",
        "-certpbe",
        "PBE-SHA1-3DES",
        "-out",
        "ec.pfx");

    List<Certificate> read = PfxCertificates.read(Files.readAllBytes(dir.resolve("ec.pfx")));

    assertThat(read).hasSize(1);
    assertThat(read.get(0).thumbprint()).isEqualTo(opensslThumbprint("ec"));
    assertThat(read.get(0).openSsh()).isEmpty();
  }
}
