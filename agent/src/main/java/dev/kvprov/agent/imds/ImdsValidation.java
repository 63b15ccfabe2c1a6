package dev.kvprov.agent.imds;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Checks what the agent will act on: a user name useradd will take and that is not a system
 * account, a host name the kernel will take, and SSH keys that are one well-formed line each.
 * Metadata is untrusted input like any other.
 */
final class ImdsValidation {
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
          "nobody",
          "sshd",
          "systemd-network");
  private static final Pattern HOST_LABEL =
      Pattern.compile("[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?");
  private static final Pattern KEY =
      Pattern.compile(
          "(ssh-(rsa|ed25519|dss)|ecdsa-sha2-nistp(256|384|521)"
              + "|sk-(ssh-ed25519|ecdsa-sha2-nistp256)@openssh\\.com) [A-Za-z0-9+/]+={0,3}( [^\\r\\n]*)?");

  private ImdsValidation() {}

  /** What is wrong with the instance, one sentence each; empty when it can be used. */
  static List<String> problems(ImdsInstance instance) {
    List<String> problems = new ArrayList<>();
    if (instance == null || instance.compute() == null) {
      problems.add("the metadata has no compute section");
      return problems;
    }
    ImdsInstance.OsProfile profile = instance.compute().osProfile();
    if (profile == null) {
      problems.add("the metadata has no compute.osProfile");
      return problems;
    }
    String user = profile.adminUsername();
    if (user == null || !USER.matcher(user).matches()) {
      problems.add(
          "adminUsername "
              + quoted(user)
              + " is not a valid user name (lower case letters, digits, _ . -; at most 32)");
    } else if (RESERVED.contains(user)) {
      problems.add("adminUsername " + quoted(user) + " is a system account");
    }
    String host = profile.computerName();
    if (host == null || host.length() > 63 || !validHost(host)) {
      problems.add(
          "computerName "
              + quoted(host)
              + " is not a valid host name (letters, digits and -, at most 63)");
    }
    for (ImdsInstance.PublicKey key : instance.compute().publicKeys()) {
      if (key.keyData() == null
          || key.keyData().length() > 16_384
          || !KEY.matcher(key.keyData().strip()).matches()) {
        problems.add("a public key is not one OpenSSH key line: " + key);
      }
      if (key.path() != null
          && (!key.path().startsWith("/")
              || key.path().contains("/../")
              || key.path().endsWith("/.."))) {
        problems.add("a public key's path is not an absolute path: " + quoted(key.path()));
      }
    }
    return problems;
  }

  private static boolean validHost(String host) {
    for (String label : host.split("\\.", -1)) {
      if (!HOST_LABEL.matcher(label).matches()) {
        return false;
      }
    }
    return true;
  }

  private static String quoted(String s) {
    if (s == null) {
      return "(missing)";
    }
    String cut = s.length() > 80 ? s.substring(0, 80) + "…" : s;
    return "'" + cut.replaceAll("\\p{Cntrl}", "?") + "'";
  }
}
