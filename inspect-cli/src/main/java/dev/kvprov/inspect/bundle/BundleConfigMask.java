package dev.kvprov.inspect.bundle;

import dev.kvprov.otel.Redactor;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A configuration file with what may be secret masked, before it goes into a ticket. It works on
 * lines, not on a parsed document: a file that does not parse is still bundled (it may be why the
 * ticket exists), and a secret in a comment or a setting commented out is as secret as a setting.
 */
final class BundleConfigMask {
  private static final Pattern TOML_VALUE =
      Pattern.compile("^(\\s*([A-Za-z0-9_.\\-\"]+)\\s*=\\s*)(.+)$");

  /** A key and value in a comment, {@code # password = "…"} or {@code # token: …}. */
  private static final Pattern COMMENTED_VALUE =
      Pattern.compile("(#+\\s*[\"']?([A-Za-z0-9_.\\-]+)[\"']?\\s*[=:]\\s*)(\\S.*)$");

  private static final Pattern URL_CREDENTIALS = Pattern.compile("://[^/@\\s\"']+@");
  private static final Pattern SECRET_PARAMETER =
      Pattern.compile("(?i)([?&](?:sig|token|key|password|secret|code)=)[^&\\s\"']+");

  private BundleConfigMask() {}

  /**
   * TOML with what may be secret masked: a secret-looking key's value, an inline table or array
   * that names one, a multi-line string under such a key (whole), and credentials in URLs.
   */
  static String mask(String toml) {
    StringBuilder b = new StringBuilder();
    String closing = null; // the delimiter that ends a multi-line string being masked
    for (String line : toml.split("\n", -1)) {
      if (closing != null) {
        if (line.contains(closing)) {
          closing = null;
        }
        b.append("# [redacted]\n");
        continue;
      }
      Matcher m = TOML_VALUE.matcher(line);
      if (m.matches()) {
        String key = m.group(2).replace("\"", "");
        String value = m.group(3).strip();
        boolean compound = value.startsWith("{") || value.startsWith("[");
        if (Redactor.isSecretKey(key) || compound && Redactor.isSecretKey(value)) {
          for (String quotes : List.of("\"\"\"", "\'\'\'")) {
            if (value.startsWith(quotes) && value.indexOf(quotes, 3) < 0) {
              closing = quotes;
            }
          }
          b.append(m.group(1)).append("\"").append(Redactor.MASK).append("\"\n");
          continue;
        }
      }
      String masked = maskCommented(line);
      masked = URL_CREDENTIALS.matcher(masked).replaceAll("://" + Redactor.MASK + "@");
      b.append(SECRET_PARAMETER.matcher(masked).replaceAll("$1" + Redactor.MASK)).append('\n');
    }
    return b.substring(0, b.length() - 1);
  }

  /** A line with a secret-looking key and value in its comment masked. */
  private static String maskCommented(String line) {
    int hash = commentStart(line);
    if (hash < 0) {
      return line;
    }
    Matcher m = COMMENTED_VALUE.matcher(line).region(hash, line.length());
    if (m.find() && Redactor.isSecretKey(m.group(2))) {
      return line.substring(0, m.start(3)) + "\"" + Redactor.MASK + "\"";
    }
    return line;
  }

  /** Where the comment of a TOML line starts (a {@code #} outside quotes), or -1. */
  private static int commentStart(String line) {
    char quote = 0;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quote != 0) {
        if (c == '\\' && quote == '"') {
          i++;
        } else if (c == quote) {
          quote = 0;
        }
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '#') {
        return i;
      }
    }
    return -1;
  }
}
