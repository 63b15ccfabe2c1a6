package dev.kvprov.agent.os;

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

  private static final Pattern SSH_KEY =
      Pattern.compile(
          "(ssh-(rsa|ed25519|dss)|ecdsa-sha2-nistp(256|384|521)"
              + "|sk-(ssh-ed25519|ecdsa-sha2-nistp256)@openssh\\.com) [A-Za-z0-9+/]+={0,3}( [^\\r\\n]*)?");

  private Names() {}

  /** Why {@code key} is not one OpenSSH public key line, or empty if it is. */
  public static Optional<String> sshKeyProblem(String key) {
    if (key == null || key.length() > 16_384 || !SSH_KEY.matcher(key.strip()).matches()) {
      String shown =
          key == null ? "(missing)" : shown(key.length() > 40 ? key.substring(0, 40) : key);
      return Optional.of("a public key is not one OpenSSH key line: " + shown);
    }
    return Optional.empty();
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
