package dev.kvprov.agent.os;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Writes a file whole or not at all: a temporary file in the same directory with the final mode and
 * owner, forced to disk, renamed over the target, the directory forced too. A power cut leaves the
 * old file or the new one, never half of either.
 */
public final class AtomicFiles {
  private AtomicFiles() {}

  /**
   * @param mode e.g. {@code r--r-----}
   * @param uid the owner, or -1 to leave it to the writer
   */
  public static void write(Path target, String content, String mode, int uid, int gid)
      throws IOException {
    write(target, content.getBytes(UTF_8), mode, uid, gid);
  }

  /** {@code content} as it is, bytes and all (as the custom data the platform gave). */
  public static void write(Path target, byte[] content, String mode, int uid, int gid)
      throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path temp =
        Files.createTempFile(
            dir,
            "." + target.getFileName(),
            ".tmp",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    try {
      try (FileChannel out = FileChannel.open(temp, StandardOpenOption.WRITE)) {
        ByteBuffer bytes = ByteBuffer.wrap(content);
        while (bytes.hasRemaining()) {
          out.write(bytes);
        }
        out.force(true);
      }
      if (uid >= 0) {
        Files.setAttribute(temp, "unix:uid", uid);
        Files.setAttribute(temp, "unix:gid", gid);
      }
      Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString(mode));
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      syncDirectory(dir);
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /** Forces a directory's entries to disk, so a file created or renamed in it survives a crash. */
  public static void syncDirectory(Path dir) throws IOException {
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    }
  }
}
