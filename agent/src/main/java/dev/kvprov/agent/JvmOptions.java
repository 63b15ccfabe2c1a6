package dev.kvprov.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The JVM options of the JVMs the agent starts itself, from the java argument files in {@code
 * bin/lib/jvm} that the launchers start the JVM with. The build copies them into this jar rather
 * than the agent finding them at run time: the jar runs from a checkout's {@code target/}, from the
 * Debian package and from test class paths, and its copy is there in each, and always the one it
 * was built with; a file looked up at run time would have to know each layout, and a missing one
 * would start a JVM unlike the launchers'.
 */
final class JvmOptions {
  private JvmOptions() {}

  /**
   * The options of the files named, in order ({@code common} for {@code jvm/common.options}), read
   * as the java launcher reads an argument file without quotes: words separated by white space,
   * {@code #} to the end of its line a comment.
   */
  static List<String> of(String... names) {
    List<String> options = new ArrayList<>();
    for (String name : names) {
      for (String line : text("jvm/" + name + ".options").split("\n")) {
        for (String word : line.strip().split("\\s+")) {
          if (word.startsWith("#")) {
            break;
          }
          if (!word.isEmpty()) {
            options.add(word);
          }
        }
      }
    }
    return List.copyOf(options);
  }

  private static String text(String resource) {
    try (InputStream in = JvmOptions.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(
            "this build of kvprov lacks its JVM options (" + resource + ")");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
