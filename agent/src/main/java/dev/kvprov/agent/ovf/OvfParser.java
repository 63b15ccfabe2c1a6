package dev.kvprov.agent.ovf;

import com.fasterxml.jackson.dataformat.xml.XmlFactory;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringWriter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import javax.xml.stream.XMLStreamWriter;

/**
 * Parses {@code ovf-env.xml}, untrusted input, safely: at most {@link #MAX_BYTES}, no DTD (a
 * document with one is refused, which stops external entities and entity expansion bombs), and
 * elements matched by namespace URI, never by prefix — except the secrets: a {@code UserPassword}
 * or {@code CustomData} element in any namespace is the password or the custom data (the
 * windowsazure one first) where it stands in the provisioning set, and anywhere its text is never
 * kept nor taken for another field.
 *
 * <p>It walks the document with the StAX reader of jackson-dataformat-xml's factory rather than
 * binding it to classes, because binding matches local names only and could not tell the
 * windowsazure namespace from any other. The password is collected as characters straight from the
 * parser, never as a String.
 */
public final class OvfParser {
  /** The largest ovf-env.xml accepted; real ones are a few kilobytes. */
  public static final int MAX_BYTES = 256 * 1024;

  static final String OVF = "http://schemas.dmtf.org/ovf/environment/1";
  static final String WA = "http://schemas.microsoft.com/windowsazure";

  private static final XMLInputFactory FACTORY = hardened();
  private static final XMLOutputFactory OUTPUT = new XmlFactory().getXMLOutputFactory();

  private OvfParser() {}

  private static XMLInputFactory hardened() {
    XMLInputFactory factory = new XmlFactory().getXMLInputFactory();
    factory.setProperty(XMLInputFactory.SUPPORT_DTD, false);
    factory.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
    factory.setProperty(XMLInputFactory.IS_NAMESPACE_AWARE, true);
    factory.setProperty(XMLInputFactory.IS_COALESCING, true);
    return factory;
  }

  /**
   * A document of the usual shape, with no password, custom data or anything of any VM's: {@link
   * #warmUp}'s.
   */
  private static final String SAMPLE =
      """
      <?xml version="1.0" encoding="utf-8"?>
      <Environment xmlns="http://schemas.dmtf.org/ovf/environment/1"
                   xmlns:wa="http://schemas.microsoft.com/windowsazure">
        <wa:ProvisioningSection>
          <LinuxProvisioningConfigurationSet xmlns="http://schemas.microsoft.com/windowsazure">
            <HostName>warm-up</HostName>
            <UserName>warm</UserName>
            <SSH><PublicKeys><PublicKey>
              <Path>/home/warm/.ssh/authorized_keys</Path><Value>ssh-ed25519 AAAA</Value>
            </PublicKey></PublicKeys></SSH>
          </LinuxProvisioningConfigurationSet>
        </wa:ProvisioningSection>
        <wa:PlatformSettingsSection>
          <PlatformSettings xmlns="http://schemas.microsoft.com/windowsazure">
            <PreprovisionedVm>false</PreprovisionedVm>
          </PlatformSettings>
        </wa:PlatformSettingsSection>
      </Environment>
      """;

  /**
   * Parses a document of the usual shape, touching nothing else: loads and initialises the XML
   * reader and writer ahead of the media, on another thread ({@code Warmup}).
   */
  public static void warmUp() throws OvfException {
    parse(SAMPLE.getBytes(java.nio.charset.StandardCharsets.UTF_8)).clearSecrets();
  }

  /** Reads at most {@link #MAX_BYTES} from {@code in} and parses them. */
  public static OvfEnvironment parse(InputStream in) throws OvfException {
    byte[] bytes;
    try {
      bytes = in.readNBytes(MAX_BYTES + 1);
    } catch (IOException e) {
      throw new OvfException("cannot read ovf-env.xml: " + e.getMessage(), e);
    }
    if (bytes.length > MAX_BYTES) {
      throw new OvfException("ovf-env.xml is larger than " + MAX_BYTES + " bytes; refused");
    }
    try {
      return parse(bytes);
    } finally {
      Arrays.fill(bytes, (byte) 0); // the password was in there
    }
  }

  static OvfEnvironment parse(byte[] bytes) throws OvfException {
    Map<String, String> fields = new HashMap<>();
    List<OvfEnvironment.SshKey> keys = new ArrayList<>();
    Map<String, String> key = new HashMap<>();
    char[] password = null;
    char[] customData = null;
    boolean passwordFromWa = false;
    boolean customDataFromWa = false;
    Deque<String> path = new ArrayDeque<>();
    XMLStreamReader xml = null;
    // The document again, without the password's and custom data's text: the copy kept on disk.
    StringWriter kept = new StringWriter();
    XMLStreamWriter copy = null;
    try {
      xml = FACTORY.createXMLStreamReader(new ByteArrayInputStream(bytes));
      copy = OUTPUT.createXMLStreamWriter(kept);
      copy.writeStartDocument("UTF-8", "1.0");
      CharBuffer text = new CharBuffer();
      while (xml.hasNext()) {
        int event = xml.next();
        // Inside the password or the custom data, at any depth: nothing of it is copied but the
        // element itself (its own end comes with the path still holding it).
        boolean secret = insideSecret(path, event == XMLStreamConstants.END_ELEMENT);
        switch (event) {
          case XMLStreamConstants.DTD ->
              throw new OvfException(
                  "ovf-env.xml has a DOCTYPE; DTDs are refused (they enable entity attacks)");
          case XMLStreamConstants.ENTITY_REFERENCE ->
              throw new OvfException("ovf-env.xml refers to an entity; refused");
          case XMLStreamConstants.START_ELEMENT -> {
            path.addLast(qualified(xml.getNamespaceURI(), xml.getLocalName()));
            text.clear();
          }
          case XMLStreamConstants.CHARACTERS, XMLStreamConstants.CDATA ->
              text.append(xml.getTextCharacters(), xml.getTextStart(), xml.getTextLength());
          case XMLStreamConstants.END_ELEMENT -> {
            String where = String.join("/", path);
            String name = xml.getLocalName();
            boolean inLinuxSet = where.startsWith(LINUX_SET + "/") && path.size() == 4;
            boolean windowsAzure = WA.equals(xml.getNamespaceURI());
            if (inLinuxSet && name.equals(PASSWORD)) {
              // Whatever its namespace: a writer that got it wrong still meant the password. The
              // windowsazure one wins over any other.
              if (password == null || (windowsAzure && !passwordFromWa)) {
                wipe(password);
                password = text.take();
                passwordFromWa = windowsAzure;
              }
            } else if (inLinuxSet && name.equals(CUSTOM_DATA)) {
              if (customData == null || (windowsAzure && !customDataFromWa)) {
                wipe(customData);
                customData = text.take();
                customDataFromWa = windowsAzure;
              }
            } else if (isSecret(name)) {
              // Anywhere else, it is nobody's password, and nobody's field either.
            } else if (inLinuxSet) {
              fields.put(name, text.toString().strip());
            } else if (where.startsWith(PUBLIC_KEY + "/") && path.size() == 7) {
              key.put(name, text.toString().strip());
            } else if (where.equals(PUBLIC_KEY)) {
              keys.add(
                  new OvfEnvironment.SshKey(
                      key.get("Path"), key.get("Value"), key.get("Fingerprint")));
              key.clear();
            } else if (where.startsWith(PLATFORM + "/") && path.size() == 4) {
              fields.put("platform." + name, text.toString().strip());
            }
            text.clear();
            path.removeLast();
          }
          default -> {}
        }
        // Copied once read: copying first would use up the reader's text.
        if (!secret) {
          copy(xml, event, copy);
        }
      }
    } catch (XMLStreamException e) {
      wipe(password);
      wipe(customData);
      throw new OvfException("ovf-env.xml is not well-formed XML: " + firstLine(e.getMessage()), e);
    } catch (OvfException e) {
      wipe(password);
      wipe(customData);
      throw e;
    } catch (RuntimeException e) {
      // The XML reader reports some malformed text (a stray '&') only when the text is read, as
      // an unchecked exception around the XMLStreamException; found by OvfParserFuzzTest.
      wipe(password);
      wipe(customData);
      if (e.getCause() instanceof XMLStreamException malformed) {
        throw new OvfException(
            "ovf-env.xml is not well-formed XML: " + firstLine(malformed.getMessage()), malformed);
      }
      throw e;
    } finally {
      if (xml != null) {
        try {
          xml.close();
        } catch (XMLStreamException ignored) {
          // nothing held but memory
        }
      }
    }
    try {
      copy.writeEndDocument();
      copy.close();
    } catch (XMLStreamException e) {
      throw new OvfException("ovf-env.xml could not be copied: " + firstLine(e.getMessage()), e);
    }
    return build(fields, keys, password, customData, kept.toString());
  }

  /**
   * Copies one event as read: elements with the namespaces they declare and their attributes, and
   * text. Comments and processing instructions are the writer's notes, not the platform's data:
   * left out.
   */
  private static void copy(XMLStreamReader xml, int event, XMLStreamWriter out)
      throws XMLStreamException {
    switch (event) {
      case XMLStreamConstants.START_ELEMENT -> {
        String prefix = xml.getPrefix();
        out.writeStartElement(
            prefix == null ? "" : prefix,
            xml.getLocalName(),
            xml.getNamespaceURI() == null ? "" : xml.getNamespaceURI());
        for (int i = 0; i < xml.getNamespaceCount(); i++) {
          String declared = xml.getNamespacePrefix(i);
          if (declared == null || declared.isEmpty()) {
            out.writeDefaultNamespace(xml.getNamespaceURI(i));
          } else {
            out.writeNamespace(declared, xml.getNamespaceURI(i));
          }
        }
        for (int i = 0; i < xml.getAttributeCount(); i++) {
          String namespace = xml.getAttributeNamespace(i);
          if (namespace == null || namespace.isEmpty()) {
            out.writeAttribute(xml.getAttributeLocalName(i), xml.getAttributeValue(i));
          } else {
            out.writeAttribute(
                xml.getAttributePrefix(i),
                namespace,
                xml.getAttributeLocalName(i),
                xml.getAttributeValue(i));
          }
        }
      }
      case XMLStreamConstants.END_ELEMENT -> out.writeEndElement();
      case XMLStreamConstants.CHARACTERS, XMLStreamConstants.SPACE ->
          out.writeCharacters(xml.getTextCharacters(), xml.getTextStart(), xml.getTextLength());
      case XMLStreamConstants.CDATA -> out.writeCData(xml.getText());
      default -> {}
    }
  }

  /**
   * Whether {@code path} is at or below a password or custom data element, in any namespace and at
   * any depth; at an end tag, below only (the element's own end tag is copied, empty).
   */
  private static boolean insideSecret(Deque<String> path, boolean atEnd) {
    int last = path.size() - 1;
    int i = 0;
    for (String element : path) {
      if ((!atEnd || i < last) && isSecret(element.substring(element.indexOf('}') + 1))) {
        return true;
      }
      i++;
    }
    return false;
  }

  /**
   * The elements whose text is never kept or taken for a field, by local name: a {@code
   * UserPassword} in another namespace is a password all the same.
   */
  private static boolean isSecret(String localName) {
    return localName.equals(PASSWORD) || localName.equals(CUSTOM_DATA);
  }

  private static final String PASSWORD = "UserPassword";
  private static final String CUSTOM_DATA = "CustomData";

  private static final String ENVIRONMENT = qualified(OVF, "Environment");
  private static final String LINUX_SET =
      ENVIRONMENT + "/" + wa("ProvisioningSection") + "/" + wa("LinuxProvisioningConfigurationSet");
  private static final String PUBLIC_KEY =
      LINUX_SET + "/" + wa("SSH") + "/" + wa("PublicKeys") + "/" + wa("PublicKey");
  private static final String PLATFORM =
      ENVIRONMENT + "/" + wa("PlatformSettingsSection") + "/" + wa("PlatformSettings");

  private static String wa(String local) {
    return qualified(WA, local);
  }

  private static String qualified(String namespace, String local) {
    return "{" + (namespace == null ? "" : namespace) + "}" + local;
  }

  private static OvfEnvironment build(
      Map<String, String> fields,
      List<OvfEnvironment.SshKey> keys,
      char[] password,
      char[] customData,
      String kept)
      throws OvfException {
    List<String> missing = new ArrayList<>();
    String user = fields.get("UserName");
    String host = fields.get("HostName");
    if (user == null || user.isEmpty()) {
      missing.add("UserName");
    }
    if (host == null || host.isEmpty()) {
      missing.add("HostName");
    }
    if (!missing.isEmpty()) {
      wipe(password);
      wipe(customData);
      throw new OvfException(
          "ovf-env.xml has no "
              + String.join(" or ", missing)
              + " in a LinuxProvisioningConfigurationSet of the "
              + WA
              + " namespace");
    }
    for (OvfEnvironment.SshKey key : keys) {
      if (key.path() == null && key.value() == null) {
        throw new OvfException("ovf-env.xml has a PublicKey with neither Path nor Value");
      }
    }
    return new OvfEnvironment(
        user,
        password == null || password.length == 0
            ? Optional.empty()
            : Optional.of(new Secret(password)),
        host,
        !"false".equals(lower(fields.get("DisableSshPasswordAuthentication"))),
        customData == null || customData.length == 0
            ? Optional.empty()
            : Optional.of(new Secret(customData)),
        keys,
        "true".equals(lower(fields.get("platform.PreprovisionedVm"))),
        // The platform writes PreprovisionedVMType; some writers spell it PreprovisionedVmType.
        fields.getOrDefault(
            "platform.PreprovisionedVMType",
            fields.getOrDefault("platform.PreprovisionedVmType", "None")),
        "true".equals(lower(fields.get("platform.ProvisionGuestProxyAgent"))),
        kept);
  }

  private static String lower(String s) {
    return s == null ? null : s.strip().toLowerCase(Locale.ROOT);
  }

  private static void wipe(char[] chars) {
    if (chars != null) {
      Arrays.fill(chars, '\0');
    }
  }

  private static String firstLine(String message) {
    return message == null ? "" : message.lines().findFirst().orElse("");
  }

  /** Element text, grown without ever becoming a String unless asked to. */
  private static final class CharBuffer {
    private char[] chars = new char[128];
    private int length;

    void append(char[] source, int start, int count) {
      if (length + count > chars.length) {
        char[] bigger = Arrays.copyOf(chars, Math.max(chars.length * 2, length + count));
        Arrays.fill(chars, '\0');
        chars = bigger;
      }
      System.arraycopy(source, start, chars, length, count);
      length += count;
    }

    void clear() {
      Arrays.fill(chars, 0, length, '\0');
      length = 0;
    }

    /** The characters, stripped of surrounding white space; the buffer is wiped. */
    char[] take() {
      int from = 0;
      int to = length;
      while (from < to && Character.isWhitespace(chars[from])) {
        from++;
      }
      while (to > from && Character.isWhitespace(chars[to - 1])) {
        to--;
      }
      char[] out = Arrays.copyOfRange(chars, from, to);
      clear();
      return out;
    }

    @Override
    public String toString() {
      return new String(chars, 0, length);
    }
  }
}
