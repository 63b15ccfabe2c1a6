package dev.kvprov.inspect.render;

/**
 * Colour for people: only when stdout is a terminal and {@code NO_COLOR} is not set, so pipes,
 * files and scripts always get plain text.
 */
public final class Style {
  static final Style PLAIN = new Style(false);

  private final boolean colour;

  private Style(boolean colour) {
    this.colour = colour;
  }

  /** Colour when stdout is a terminal (and the user has not opted out). */
  public static Style forStdout() {
    return new Style(
        isTerminal() && System.getenv("NO_COLOR") == null && !"dumb".equals(System.getenv("TERM")));
  }

  /**
   * The columns human output fits: the terminal's ({@code COLUMNS}, which bin/kvp sets from the
   * tty, else 80) when stdout is one; {@link Integer#MAX_VALUE} otherwise or when {@code wide}, so
   * that a pipe or a file gets every line whole.
   */
  public static int columns(boolean wide) {
    if (wide || !isTerminal()) {
      return Integer.MAX_VALUE;
    }
    try {
      int columns = Integer.parseInt(System.getenv().getOrDefault("COLUMNS", "80").trim());
      return columns >= 20 ? columns : 80;
    } catch (NumberFormatException e) {
      return 80;
    }
  }

  /**
   * Whether file descriptor {@code fd} (0 stdin, 2 stderr) is a terminal: Java says so of none but
   * stdout, so the link Linux keeps for it in {@code /proc/self/fd} tells.
   */
  public static boolean isTerminal(int fd) {
    try {
      String target =
          java.nio.file.Files.readSymbolicLink(java.nio.file.Path.of("/proc/self/fd/" + fd))
              .toString();
      return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
    } catch (java.io.IOException | UnsupportedOperationException | SecurityException e) {
      return false;
    }
  }

  private static boolean isTerminal() {
    java.io.Console console = System.console();
    if (console == null) {
      return false;
    }
    // From Java 22 a console exists even when redirected; isTerminal() then tells the truth.
    try {
      return (Boolean) java.io.Console.class.getMethod("isTerminal").invoke(console);
    } catch (ReflectiveOperationException e) {
      return true;
    }
  }

  public String error(String text) {
    return wrap("1;31", text);
  }

  public String warn(String text) {
    return wrap("33", text);
  }

  public String dim(String text) {
    return wrap("2", text);
  }

  public String bold(String text) {
    return wrap("1", text);
  }

  private String wrap(String code, String text) {
    return colour ? "\u001b[" + code + "m" + text + "\u001b[0m" : text;
  }
}
