package dev.kvprov.agent.config;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where each key of a TOML file is written, for messages that name a line and column (the TOML
 * parser keeps no positions in its tree). Understands tables, dotted and quoted keys, and skips
 * multi-line strings; anything it cannot place gets no position, and the message names the file
 * only.
 */
final class TomlLines {
  /** A 1-based place in the text; {@link #UNKNOWN} when it is not known. */
  record Position(int line, int column) {
    static final Position UNKNOWN = new Position(0, 0);
  }

  /** A key written a second time in the same table, which TOML forbids. */
  record Repeat(String key, Position first, Position again) {}

  private final Map<String, Position> positions = new HashMap<>();
  private Repeat firstRepeat;

  TomlLines(List<String> text) {
    Map<String, Position> keys = new HashMap<>();
    String table = "";
    boolean inMultiLineString = false;
    for (int i = 0; i < text.size(); i++) {
      String raw = text.get(i);
      String line = raw.strip();
      boolean opensOrClosesString = (count(line, "\"\"\"") + count(line, "'''")) % 2 == 1;
      if (inMultiLineString) {
        inMultiLineString = !opensOrClosesString;
        continue;
      }
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      inMultiLineString = opensOrClosesString;
      Position at = new Position(i + 1, raw.length() - raw.stripLeading().length() + 1);
      if (line.startsWith("[[")) {
        int end = line.indexOf("]]");
        if (end > 2) {
          positions.putIfAbsent(unquote(line.substring(2, end).strip()), at);
        }
        // Each element of an array of tables is a table of its own: its keys repeat no other's.
        table = "[[" + i + "]]";
        continue;
      }
      if (line.startsWith("[")) {
        int end = line.indexOf(']');
        if (end > 0) {
          table = unquote(line.substring(1, end).strip());
          positions.putIfAbsent(table, at);
        }
        continue;
      }
      int equals = line.indexOf('=');
      if (equals > 0) {
        String key = unquote(line.substring(0, equals).strip());
        String dotted = table.isEmpty() ? key : table + "." + key;
        positions.putIfAbsent(dotted, at);
        Position first = keys.putIfAbsent(dotted, at);
        if (first != null && firstRepeat == null) {
          firstRepeat = new Repeat(dotted, first, at);
        }
      }
    }
  }

  private static int count(String text, String part) {
    int n = 0;
    for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + part.length())) {
      n++;
    }
    return n;
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

  /**
   * Where a dotted key is written; for a key it cannot place (one inside an inline table), where
   * its table is.
   */
  Position position(String key) {
    for (String k = key; ; k = k.substring(0, k.lastIndexOf('.'))) {
      Position at = positions.get(k);
      if (at != null) {
        return at;
      }
      if (k.indexOf('.') < 0) {
        return Position.UNKNOWN;
      }
    }
  }

  /** The first key written twice in one table, if any. */
  Optional<Repeat> firstRepeat() {
    return Optional.ofNullable(firstRepeat);
  }
}
