package dev.kvprov.agent.os;

import java.io.IOException;
import java.nio.file.Files;

/** The target system's {@code /etc/login.defs}, for the settings the agent needs. */
public final class LoginDefs {
  /** shadow-utils' default for both {@code UID_MIN} and {@code GID_MIN}. */
  private static final int DEFAULT_MIN = 1000;

  private LoginDefs() {}

  /** The first uid of ordinary users: {@code UID_MIN}, else 1000 (shadow-utils' default). */
  public static int uidMin(SystemRoot root) {
    return number(root, "UID_MIN");
  }

  /** The first gid of ordinary groups: {@code GID_MIN}, else 1000 (shadow-utils' default). */
  public static int gidMin(SystemRoot root) {
    return number(root, "GID_MIN");
  }

  /**
   * {@code USERGROUPS_ENAB}: whether {@code useradd} gives each new user a group of its own name
   * (Debian's and Ubuntu's login.defs say yes). Absent, shadow-utils reads it as no, and the user
   * joins the default group instead.
   */
  public static boolean userGroups(SystemRoot root) {
    try {
      for (String line : Files.readAllLines(root.resolve("/etc/login.defs"))) {
        String[] f = line.strip().split("\\s+");
        if (f.length == 2 && f[0].equals("USERGROUPS_ENAB")) {
          return f[1].equalsIgnoreCase("yes");
        }
      }
    } catch (IOException e) {
      // no (readable) login.defs in the target: shadow-utils' default, no
    }
    return false;
  }

  private static int number(SystemRoot root, String key) {
    try {
      for (String line : Files.readAllLines(root.resolve("/etc/login.defs"))) {
        String[] f = line.strip().split("\\s+");
        if (f.length == 2 && f[0].equals(key)) {
          return Integer.parseInt(f[1]);
        }
      }
    } catch (IOException | NumberFormatException e) {
      // no (readable) login.defs in the target: the usual default
    }
    return DEFAULT_MIN;
  }
}
