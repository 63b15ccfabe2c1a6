package dev.kvprov.agent.os;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What makes a user name and a host name safe to act on. Both come from untrusted metadata and end
 * up as command arguments and paths: a name like {@code -oProxyCommand=x} or {@code ../x} must
 * never get that far.
 */
public final class Names {
  private static final Pattern USER = Pattern.compile("[a-z_][a-z0-9_.-]{0,31}");
  private static final Set<String> RESERVED =
      Set.of(
          "root",
          "daemon",
          "bin",
          "sys",
          "sync",
          "games",
          "man",
          "lp",
          "mail",
          "news",
          "uucp",
          "proxy",
          "www-data",
          "backup",
          "list",
          "irc",
          "gnats",
          "nobody",
          "sshd",
          "messagebus",
          "systemd-network",
          "systemd-resolve",
          "systemd-timesync",
          "_apt",
          "syslog");
  private static final Pattern HOST_LABEL =
      Pattern.compile("[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?");

  /** The key types sshd accepts in authorized_keys (certificates and options aside). */
  private static final Pattern SSH_KEY_TYPE =
      Pattern.compile(
          "ssh-(rsa|ed25519|dss)|ecdsa-sha2-nistp(256|384|521)"
              + "|sk-(ssh-ed25519|ecdsa-sha2-nistp256)@openssh\\.com");

  private static final Pattern BASE64 = Pattern.compile("[A-Za-z0-9+/]+={0,3}");
  private static final int MAX_KEY_LINE = 16_384;

  private Names() {}

  /**
   * Why {@code key} is not one OpenSSH public key line, or empty if it is: a known type, a space,
   * base64 that decodes to data which begins with that same type's name (as sshd checks), then an
   * optional comment; one line. The reason quotes no key data: at most an unknown type, cut to 24
   * characters, or the type name the data holds.
   */
  public static Optional<String> sshKeyLineProblem(String key) {
    if (key == null || key.isBlank()) {
      return Optional.of("the key is missing");
    }
    String line = key.strip();
    if (line.length() > MAX_KEY_LINE) {
      return Optional.of("the key is longer than " + MAX_KEY_LINE + " characters");
    }
    if (line.indexOf('\n') >= 0 || line.indexOf('\r') >= 0) {
      return Optional.of("the key holds a line break");
    }
    String[] fields = line.split(" ", 3);
    if (!SSH_KEY_TYPE.matcher(fields[0]).matches()) {
      return Optional.of("unknown key type " + shown(cut(fields[0], 24)));
    }
    if (fields.length < 2 || !BASE64.matcher(fields[1]).matches()) {
      return Optional.of("the " + fields[0] + " key's data is not base64 after one space");
    }
    byte[] blob;
    try {
      blob = Base64.getDecoder().decode(fields[1]);
    } catch (IllegalArgumentException e) {
      return Optional.of("the " + fields[0] + " key's data is not valid base64");
    }
    String inBlob = blobType(blob);
    if (!inBlob.equals(fields[0])) {
      return Optional.of(
          "the key says "
              + fields[0]
              + " but its data "
              + (inBlob.isEmpty() ? "names no key type" : "is of type " + shown(cut(inBlob, 40))));
    }
    return Optional.empty();
  }

  /** The first string of an SSH wire-format key (RFC 4253 §6.6): its type; empty if none. */
  private static String blobType(byte[] blob) {
    if (blob.length < 4) {
      return "";
    }
    long length = ByteBuffer.wrap(blob, 0, 4).getInt() & 0xffffffffL;
    if (length == 0 || length > blob.length - 4) {
      return "";
    }
    return new String(blob, 4, (int) length, StandardCharsets.ISO_8859_1);
  }

  private static String cut(String s, int max) {
    return s.length() > max ? s.substring(0, max) : s;
  }

  /** Whether {@code text} holds a control character (a NUL, a line break, …). */
  public static boolean hasControlCharacter(String text) {
    return text.chars().anyMatch(c -> c < 0x20 || c == 0x7f);
  }

  /** Why {@code user} cannot be the admin user, or empty if it can. */
  public static Optional<String> userProblem(String user) {
    if (user == null || user.isEmpty()) {
      return Optional.of("the user name is missing");
    }
    if (!USER.matcher(user).matches()) {
      return Optional.of(
          "user name "
              + shown(user)
              + " is not a portable user name (a-z, 0-9, _ . -, not starting with - or a digit, at most 32)");
    }
    if (RESERVED.contains(user)) {
      return Optional.of("user name " + shown(user) + " is a system account");
    }
    return Optional.empty();
  }

  /** Why {@code host} cannot be the host name (RFC 1123, at most 63), or empty if it can. */
  public static Optional<String> hostProblem(String host) {
    if (host == null || host.isEmpty()) {
      return Optional.of("the host name is missing");
    }
    if (host.length() > 63) {
      return Optional.of("host name " + shown(host) + " is longer than 63 characters");
    }
    for (String label : host.split("\\.", -1)) {
      if (!HOST_LABEL.matcher(label).matches()) {
        return Optional.of(
            "host name " + shown(host) + " is not a valid host name (letters, digits, - and dots)");
      }
    }
    return Optional.empty();
  }

  static String shown(String s) {
    String cut = s.length() > 64 ? s.substring(0, 64) + "…" : s;
    return "'" + cut.replaceAll("\\p{Cntrl}", "?") + "'";
  }
}
