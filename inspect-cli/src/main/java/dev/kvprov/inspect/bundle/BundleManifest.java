package dev.kvprov.inspect.bundle;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.util.ArrayList;
import java.util.List;

/**
 * What went into a bundle, and what did not and why, one line each in the order it was tried: the
 * ticket's reader learns from it what is missing without asking the customer again.
 */
public final class BundleManifest {
  private final List<String> lines = new ArrayList<>();

  public void add(String line) {
    lines.add(line);
  }

  /** A line said once however often it is met: one link out of the root bars several reads. */
  void addOnce(String line) {
    if (!lines.contains(line)) {
      lines.add(line);
    }
  }

  void added(String name, long bytes, String from) {
    lines.add("added " + name + " (" + bytes + " bytes, from " + from + ")");
  }

  public List<String> lines() {
    return List.copyOf(lines);
  }

  /** {@code MANIFEST.txt}: the lines, each ended. */
  byte[] text() {
    return (String.join("\n", lines) + "\n").getBytes(UTF_8);
  }
}
