package dev.kvprov.agent.config;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where each key of a TOML file is written, for messages that name a line (the TOML parser does not
 * keep positions). Understands tables, dotted and quoted keys; anything it cannot place gets no
 * line, and the message names the file only.
 */
final class TomlLines {
  private final Map<String, Integer> lines = new HashMap<>();

  TomlLines(List<String> text) {
    String table = "";
    for (int i = 0; i < text.size(); i++) {
      String line = text.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      if (line.startsWith("[") && !line.startsWith("[[")) {
        int end = line.indexOf(']');
        if (end > 0) {
          table = unquote(line.substring(1, end).strip());
          lines.putIfAbsent(table, i + 1);
        }
        continue;
      }
      int equals = line.indexOf('=');
      if (equals > 0) {
        String key = unquote(line.substring(0, equals).strip());
        lines.putIfAbsent(table.isEmpty() ? key : table + "." + key, i + 1);
      }
    }
  }

  private static String unquote(String dotted) {
    StringBuilder out = new StringBuilder();
    for (String part : dotted.split("\\.")) {
      String p = part.strip();
      if (p.length() >= 2
          && (p.startsWith("\"") && p.endsWith("\"") || p.startsWith("'") && p.endsWith("'"))) {
        p = p.substring(1, p.length() - 1);
      }
      if (out.length() > 0) {
        out.append('.');
      }
      out.append(p);
    }
    return out.toString();
  }

  /** The 1-based line of a dotted key, or 0 if unknown. */
  int line(String key) {
    return lines.getOrDefault(key, 0);
  }
}
