package dev.kvprov.agent.ignition;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvprov.agent.ovf.Secret;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.commons.codec.digest.Sha2Crypt;

/**
 * An Ignition config (spec 3.4.0) that does what kvprov's steps would: the admin user with its SSH
 * keys, groups and password hash, and {@code /etc/hostname}. For images where Ignition applies the
 * platform's data (Afterburn's {@code render-ignition} does the same from its own metadata).
 */
public final class IgnitionFragment {
  /** Flatcar's and Fedora CoreOS's Ignition read 3.4.0; later specs are not read everywhere yet. */
  public static final String SPEC_VERSION = "3.4.0";

  private static final ObjectMapper MAPPER =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private IgnitionFragment() {}

  /**
   * The config as JSON. The password, when given, is there only as a SHA-512 crypt hash with a
   * fresh salt.
   *
   * @param hostname the host name
   * @param user the admin user
   * @param groups supplementary groups (Ignition fails a boot on a group the image lacks)
   * @param keys the SSH public key lines
   * @param password the admin password, if any
   */
  public static String render(
      String hostname,
      String user,
      List<String> groups,
      List<String> keys,
      Optional<Secret> password) {
    ObjectNode config = MAPPER.createObjectNode();
    config.putObject("ignition").put("version", SPEC_VERSION);
    ObjectNode admin = config.putObject("passwd").putArray("users").addObject();
    admin.put("name", user);
    if (!keys.isEmpty()) {
      ArrayNode keyArray = admin.putArray("sshAuthorizedKeys");
      keys.forEach(k -> keyArray.add(k.strip()));
    }
    if (!groups.isEmpty()) {
      ArrayNode groupArray = admin.putArray("groups");
      groups.forEach(groupArray::add);
    }
    password.ifPresent(p -> admin.put("passwordHash", hash(p)));
    ObjectNode file = config.putObject("storage").putArray("files").addObject();
    file.put("path", "/etc/hostname");
    file.put("mode", 0644);
    file.put("overwrite", true);
    file.putObject("contents").put("source", dataUrl(hostname + "\n"));
    try {
      return MAPPER.writeValueAsString(config) + "\n";
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("a tree of strings did not serialise", e);
    }
  }

  private static String hash(Secret password) {
    char[] chars = password.copy();
    byte[] bytes = new String(chars).getBytes(UTF_8);
    try {
      return Sha2Crypt.sha512Crypt(bytes);
    } finally {
      Arrays.fill(chars, '\0');
      Arrays.fill(bytes, (byte) 0);
    }
  }

  /** An RFC 2397 data URL: every byte but the unreserved ones percent-encoded. */
  static String dataUrl(String text) {
    StringBuilder out = new StringBuilder("data:,");
    for (byte b : text.getBytes(UTF_8)) {
      char c = (char) (b & 0xff);
      if (c < 0x80 && (Character.isLetterOrDigit(c) || "-._~".indexOf(c) >= 0)) {
        out.append(c);
      } else {
        out.append('%').append(String.format("%02X", b & 0xff));
      }
    }
    return out.toString();
  }
}
