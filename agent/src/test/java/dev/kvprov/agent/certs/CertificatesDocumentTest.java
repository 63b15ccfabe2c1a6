package dev.kvprov.agent.certs;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Base64;
import org.junit.jupiter.api.Test;

class CertificatesDocumentTest {
  private static final byte[] DER = {0x30, (byte) 0x82, 0x01, 0x00, 0x06, 0x09, 0x2a, (byte) 0x86};

  private static byte[] document(String data) {
    return ("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<CertificateFile><Version>2012-11-30"
            + "</Version><Incarnation>1</Incarnation><Format>Pkcs7BlobWithPfxContents</Format>"
            + "<Data>"
            + data
            + "</Data></CertificateFile>")
        .getBytes(UTF_8);
  }

  @Test
  void envelopedData_decodesTheBase64_acrossLineBreaks() throws Exception {
    String wrapped = Base64.getMimeEncoder(4, "\r\n".getBytes(UTF_8)).encodeToString(DER);

    assertThat(CertificatesDocument.envelopedData(document(wrapped))).isEqualTo(DER);
  }

  @Test
  void envelopedData_skipsSmimeHeaders() throws Exception {
    String smime =
        "MIME-Version:1.0\nContent-Disposition: attachment; filename=/var/lib/x.p7m\n"
            + "Content-Type: application/x-pkcs7-mime; name=/var/lib/x.p7m\n"
            + "Content-Transfer-Encoding: base64\n\n"
            + Base64.getEncoder().encodeToString(DER);

    assertThat(CertificatesDocument.envelopedData(document(smime))).isEqualTo(DER);
  }

  @Test
  void envelopedData_refusesADtd_aDocumentWithoutData_andNoise() {
    byte[] dtd =
        ("<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/shadow\">]>"
                + "<CertificateFile><Data>&e;</Data></CertificateFile>")
            .getBytes(UTF_8);
    assertThatThrownBy(() -> CertificatesDocument.envelopedData(dtd))
        .isInstanceOf(CertificatesException.class)
        .hasMessageContaining("DTD");
    assertThatThrownBy(
            () ->
                CertificatesDocument.envelopedData(
                    "<CertificateFile><Format>x</Format></CertificateFile>".getBytes(UTF_8)))
        .hasMessage("the goal state's certificates document has no Data");
    assertThatThrownBy(() -> CertificatesDocument.envelopedData(document("not*base64!")))
        .hasMessageStartingWith("the goal state's certificates are not base64");
    assertThatThrownBy(() -> CertificatesDocument.envelopedData("<Certif".getBytes(UTF_8)))
        .hasMessageStartingWith("the goal state's certificates document is not well-formed XML");
  }
}
