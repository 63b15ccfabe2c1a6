package dev.kvprov.agent.os;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/** An {@code /etc/passwd} entry of the target system. */
public record Passwd(String name, int uid, int gid, String home, String shell) {

  /** The entry for {@code user} in {@code <root>/etc/passwd}, if there is one. */
  public static Optional<Passwd> lookup(SystemRoot root, String user) throws IOException {
    Path file = root.resolve("/etc/passwd");
    try {
      for (String line : Files.readAllLines(file)) {
        String[] f = line.split(":", -1);
        if (f.length >= 7 && f[0].equals(user)) {
          return Optional.of(
              new Passwd(f[0], Integer.parseInt(f[2]), Integer.parseInt(f[3]), f[5], f[6]));
        }
      }
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (NumberFormatException e) {
      throw new IOException(file + ": the entry for " + user + " has no numeric uid or gid", e);
    }
    return Optional.empty();
  }
}
