package dev.kvprov.agent.os;

import java.io.IOException;
import java.nio.file.Files;

/** The target system's {@code /etc/login.defs}, for the settings the agent needs. */
public final class LoginDefs {
  private static final int DEFAULT_UID_MIN = 1000;

  private LoginDefs() {}

  /** The first uid of ordinary users: {@code UID_MIN}, else 1000 (shadow-utils' default). */
  public static int uidMin(SystemRoot root) {
    try {
      for (String line : Files.readAllLines(root.resolve("/etc/login.defs"))) {
        String[] f = line.strip().split("\\s+");
        if (f.length == 2 && f[0].equals("UID_MIN")) {
          return Integer.parseInt(f[1]);
        }
      }
    } catch (IOException | NumberFormatException e) {
      // no (readable) login.defs in the target: the usual default
    }
    return DEFAULT_UID_MIN;
  }
}
