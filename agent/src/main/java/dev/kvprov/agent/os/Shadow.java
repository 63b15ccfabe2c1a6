package dev.kvprov.agent.os;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/** The target system's {@code /etc/shadow}: a user's password hash, read and set. */
public final class Shadow {
  private Shadow() {}

  /** {@code user}'s hash field, or empty when the file or the entry is missing. */
  public static String hash(SystemRoot root, String user) throws IOException {
    Path shadow = root.resolve("/etc/shadow");
    if (!Files.exists(shadow)) {
      return "";
    }
    for (String line : Files.readAllLines(shadow)) {
      String[] f = line.split(":", -1);
      if (f.length > 1 && f[0].equals(user)) {
        return f[1];
      }
    }
    return "";
  }

  /**
   * Sets {@code user}'s hash (and the day it changed) atomically, keeping the file's mode and
   * owner; for an image root, where {@code chpasswd} would act on this machine.
   *
   * @return false when the file has no entry for {@code user}
   */
  public static boolean setHash(SystemRoot root, String user, String hash) throws IOException {
    Path shadow = root.resolve("/etc/shadow");
    List<String> lines = new ArrayList<>(Files.readAllLines(shadow));
    boolean found = false;
    long today = LocalDate.now(ZoneOffset.UTC).toEpochDay();
    for (int i = 0; i < lines.size(); i++) {
      String[] f = lines.get(i).split(":", -1);
      if (f.length >= 3 && f[0].equals(user)) {
        f[1] = hash;
        f[2] = String.valueOf(today);
        lines.set(i, String.join(":", f));
        found = true;
      }
    }
    if (!found) {
      return false;
    }
    String mode = PosixFilePermissions.toString(Files.getPosixFilePermissions(shadow));
    int uid = (Integer) Files.getAttribute(shadow, "unix:uid");
    int gid = (Integer) Files.getAttribute(shadow, "unix:gid");
    AtomicFiles.write(shadow, String.join("\n", lines) + "\n", mode, uid, gid);
    return true;
  }
}
