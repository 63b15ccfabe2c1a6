package dev.kvprov.agent.certs;

import java.io.ByteArrayInputStream;
import java.util.Base64;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * The wireserver's {@code CertificateFile} document: its {@code Data} is a base64 CMS
 * EnvelopedData, sometimes preceded by S/MIME header lines ({@code MIME-Version: 1.0}, {@code
 * Content-Type: application/x-pkcs7-mime…}) and a blank line.
 */
final class CertificatesDocument {
  private CertificatesDocument() {}

  /** The DER of the enveloped message in {@code xml}. */
  static byte[] envelopedData(byte[] xml) throws CertificatesException {
    String data = data(xml);
    if (data == null || data.isBlank()) {
      throw new CertificatesException("the goal state's certificates document has no Data");
    }
    String base64 = data.strip();
    if (base64.regionMatches(true, 0, "MIME-Version", 0, "MIME-Version".length())) {
      int body = blankLine(base64);
      if (body < 0) {
        throw new CertificatesException(
            "the goal state's certificates are S/MIME headers with no body");
      }
      base64 = base64.substring(body);
    }
    try {
      return Base64.getMimeDecoder().decode(base64);
    } catch (IllegalArgumentException e) {
      throw new CertificatesException(
          "the goal state's certificates are not base64: " + e.getMessage(), e);
    }
  }

  /** Where the body starts after the first empty line, or -1. */
  private static int blankLine(String text) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\r?\\n\\r?\\n").matcher(text);
    return m.find() ? m.end() : -1;
  }

  private static String data(byte[] xml) throws CertificatesException {
    XMLInputFactory factory = XMLInputFactory.newFactory();
    factory.setProperty(XMLInputFactory.SUPPORT_DTD, false);
    factory.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
    factory.setProperty(XMLInputFactory.IS_COALESCING, true);
    XMLStreamReader reader = null;
    try {
      reader = factory.createXMLStreamReader(new ByteArrayInputStream(xml));
      while (reader.hasNext()) {
        int event = reader.next();
        if (event == XMLStreamConstants.DTD || event == XMLStreamConstants.ENTITY_REFERENCE) {
          throw new CertificatesException(
              "the goal state's certificates document has a DTD or an entity; refused");
        }
        if (event == XMLStreamConstants.START_ELEMENT && reader.getLocalName().equals("Data")) {
          return reader.getElementText();
        }
      }
      return null;
    } catch (XMLStreamException e) {
      throw new CertificatesException(
          "the goal state's certificates document is not well-formed XML: "
              + e.getMessage().lines().findFirst().orElse(""),
          e);
    } finally {
      if (reader != null) {
        try {
          reader.close();
        } catch (XMLStreamException ignored) {
          // nothing held but memory
        }
      }
    }
  }
}
