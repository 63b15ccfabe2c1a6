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
      return f.getReason();
    }
    String message = e.getMessage();
    return message == null || message.isBlank() ? "input/output error" : message;
  }
}
