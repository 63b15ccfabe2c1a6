package dev.kvprov.agent.config;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;

/**
 * "Did you mean": the known keys or sections an unknown one was most likely meant to be. A near
 * miss is a typo (a letter or two wrong, missing, extra or swapped, in any case, {@code -} for
 * {@code _}), or the right key in the wrong section ({@code ssh.read_timeout_secs}).
 */
final class KeySuggestions {
  private KeySuggestions() {}

  /** {@code "; did you mean imds.read_timeout_secs?"}, or nothing when no key is near. */
  static String forKey(String unknown) {
    List<String> keys = Arrays.stream(ConfigKey.values()).map(k -> k.key).toList();
    List<String> near = nearest(unknown, keys, Function.identity());
    if (near.isEmpty()) {
      near = nearest(lastSegment(unknown), keys, KeySuggestions::lastSegment);
    }
    return phrase(near);
  }

  /** {@code "; did you mean [imds]?"}, or nothing when no section is near. */
  static String forSection(String unknown) {
    Set<String> sections = new LinkedHashSet<>();
    for (ConfigKey key : ConfigKey.values()) {
      sections.add(key.key.substring(0, key.key.lastIndexOf('.')));
    }
    return phrase(
        nearest(unknown, List.copyOf(sections), Function.identity()).stream()
            .map(s -> "[" + s + "]")
            .toList());
  }

  /**
   * The candidates whose {@code part} is nearest to {@code unknown}, if near enough: a short name
   * is allowed one edit, a longer one two, so that {@code ssh} does not suggest {@code imds}.
   */
  private static List<String> nearest(
      String unknown, List<String> candidates, Function<String, String> part) {
    int allowed = Math.min(2, Math.max(1, unknown.length() / 3));
    int best = allowed + 1;
    List<String> nearest = new ArrayList<>();
    for (String candidate : candidates) {
      int distance = distance(normal(unknown), normal(part.apply(candidate)));
      if (distance < best) {
        best = distance;
        nearest.clear();
      }
      if (distance == best) {
        nearest.add(candidate);
      }
    }
    return nearest;
  }

  private static String lastSegment(String dotted) {
    return dotted.substring(dotted.lastIndexOf('.') + 1);
  }

  private static String normal(String name) {
    return name.toLowerCase(Locale.ROOT).replace('-', '_');
  }

  private static String phrase(List<String> near) {
    if (near.isEmpty()) {
      return "";
    }
    String last = near.get(near.size() - 1);
    return "; did you mean "
        + (near.size() == 1
            ? last
            : String.join(", ", near.subList(0, near.size() - 1)) + " or " + last)
        + "?";
  }

  /**
   * Edits (insert, delete, replace, swap two neighbours) from {@code a} to {@code b}: the optimal
   * string alignment distance, which counts the typist's commonest slip, a swap, as one.
   */
  static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1
            && j > 1
            && a.charAt(i - 1) == b.charAt(j - 2)
            && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }
}
