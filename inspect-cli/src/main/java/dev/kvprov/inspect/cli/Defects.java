package dev.kvprov.inspect.cli;

import java.util.Locale;

/** A defect in kvp, in words for the person who hit it: what went wrong, never a class name. */
final class Defects {
  private Defects() {}

  /** {@code e} in a few words, e.g. "out of memory", "a value was missing where one is needed". */
  static String describe(Throwable e) {
    String what =
        switch (e.getClass().getSimpleName()) {
          case "OutOfMemoryError" -> "out of memory";
          case "StackOverflowError" -> "nesting too deep";
          case "NullPointerException" -> "a value was missing where one is needed";
          case "ArrayIndexOutOfBoundsException",
              "StringIndexOutOfBoundsException",
              "IndexOutOfBoundsException" ->
              "a position past the end of a text or list";
          case "NumberFormatException" -> "a number that does not read";
          case "ArithmeticException" -> "a number out of range";
          case "ClassCastException" -> "a value of the wrong kind";
          case "IllegalStateException", "IllegalArgumentException" -> "an unexpected state";
          default -> "an unexpected error";
        };
    String message = e.getMessage();
    if (message == null || message.isBlank() || looksLikeCode(message)) {
      return what;
    }
    return what + ": " + message.lines().findFirst().orElse("").strip();
  }

  /** A message that names Java types or members says nothing a reader can act on. */
  private static boolean looksLikeCode(String message) {
    String m = message.toLowerCase(Locale.ROOT);
    return m.contains("java.") || m.contains("dev.kvprov") || m.contains("exception");
  }
}
