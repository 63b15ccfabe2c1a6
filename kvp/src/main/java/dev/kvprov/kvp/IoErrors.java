package dev.kvprov.kvp;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;

/**
 * Why an I/O operation failed, in the words of the C library ({@code no such file or directory},
 * {@code No space left on device}), for messages people read: Java's own are often just a path, or
 * the name of an exception class.
 */
public final class IoErrors {
  private IoErrors() {}

  /**
   * {@code /etc/shadow: No space left on device}: the file, when Java names one, and the reason.
   */
  public static String describe(IOException e) {
    String file = e instanceof FileSystemException f ? f.getFile() : null;
    return file == null ? reason(e) : file + ": " + reason(e);
  }

  /** The reason alone, without the file's name. */
  public static String reason(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "no such file or directory";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof FileSystemException f && f.getReason() != null) {
      return plain(f.getReason());
    }
    String message = e.getMessage();
    return message == null || message.isBlank() ? "input/output error" : plain(message);
  }

  /**
   * The C library's words where they say nothing to a reader: ESPIPE ("Illegal seek") is a pipe or
   * a terminal where a file was wanted.
   */
  private static String plain(String reason) {
    return switch (reason) {
      case "Illegal seek" -> "a pipe or a terminal, not a file that can be read at any position";
      case "Is a directory" -> "a directory, not a file";
      default -> reason;
    };
  }
}
