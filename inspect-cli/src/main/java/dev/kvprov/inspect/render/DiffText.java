package dev.kvprov.inspect.render;

import dev.kvprov.inspect.spans.BootDiff;
import dev.kvprov.inspect.spans.BootDiff.Side;
import dev.kvprov.inspect.spans.BootDiff.Step;
import dev.kvprov.inspect.text.Text;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code kvp diff} for people, in 80 columns: what matters on the first line, the two boots, then
 * every step side by side with what changed under it.
 */
public final class DiffText {
  private static final int COLUMNS = 80;
  private static final int NAME_WIDTH = 44;
  private static final int TIME_WIDTH = 10;
  private static final int VALUE_WIDTH = 24;
  private static final int NOTE_WIDTH = 60;
  private static final int NOTE_LINES = 3;

  private DiffText() {}

  public static void print(BootDiff diff, PrintWriter out, Style style) {
    String headline = Text.cut(headline(diff), COLUMNS);
    out.println(diff.b().failed() ? style.error(headline) : style.bold(headline));
    List<String> summary = Text.wrap(summary(diff), COLUMNS, COLUMNS - 2);
    out.println(summary.get(0));
    summary.subList(1, summary.size()).forEach(l -> out.println("  " + l));
    out.println();
    boot("A", diff.a(), out);
    boot("B", diff.b(), out);
    out.println();
    out.println(
        Text.padRight("step", NAME_WIDTH)
            + Text.padLeft("A", TIME_WIDTH)
            + Text.padLeft("B", TIME_WIDTH)
            + Text.padLeft("change", TIME_WIDTH));
    // the depths at which a step is in one boot only: its steps are too, said once above them
    java.util.BitSet onlyAbove = new java.util.BitSet();
    for (Step step : diff.steps()) {
      boolean only = step.a().isEmpty() || step.b().isEmpty();
      boolean saidAbove = only && onlyAbove.previousSetBit(step.depth() - 1) >= 0;
      onlyAbove.clear(step.depth(), Integer.MAX_VALUE);
      if (only) {
        onlyAbove.set(step.depth());
      }
      String indent = "  ".repeat(Math.min(step.depth(), 10));
      String name = Text.cut(indent + Text.printable(step.name()), NAME_WIDTH - 1);
      String change = step.change().map(c -> Text.signedSeconds(c, TIME_WIDTH)).orElse("");
      out.println(
          Text.padRight(name, NAME_WIDTH)
              + time(step.a())
              + time(step.b())
              + (change.isEmpty() ? "" : change));
      String under = indent + "    ";
      int width = Math.max(COLUMNS - under.length(), 20);
      for (String note : saidAbove ? List.<String>of() : notes(step)) {
        // a failure's message is what the reader came for: wrapped at words, not cut at once
        List<String> lines = Text.wrap(Text.printable(note), width, width);
        for (int i = 0; i < Math.min(lines.size(), NOTE_LINES); i++) {
          boolean cut = i == NOTE_LINES - 1 && lines.size() > NOTE_LINES;
          out.println(under + (cut ? Text.cut(lines.get(i) + " …", width) : lines.get(i)));
        }
      }
    }
  }

  private static void boot(String label, BootDiff.Boot boot, PrintWriter out) {
    String took = boot.duration().map(d -> Text.seconds(d, 0)).orElse("no dated span");
    List<String> title = Text.wrap(Text.printable(boot.title()) + ", " + took, 76, 76);
    out.println(label + "  " + title.get(0));
    title.subList(1, title.size()).forEach(l -> out.println("   " + l));
    String file = Text.printable(boot.source());
    // a long path keeps its end: the file's name says which boot it is
    out.println("   " + (file.length() <= 77 ? file : "…" + file.substring(file.length() - 76)));
  }

  /** A side's time, or {@code —} for a step it does not have; {@code ?} undated. */
  private static String time(Optional<Side> side) {
    if (side.isEmpty()) {
      return Text.padLeft("—", TIME_WIDTH);
    }
    return side.get()
        .duration()
        .map(d -> Text.seconds(d, TIME_WIDTH))
        .orElse(
            Text.padLeft(
                side.get().status().equals("unfinished") ? "unfinished" : "?", TIME_WIDTH));
  }

  /** What changed at a step, a line each: status, attempts, attributes, or being in one only. */
  static List<String> notes(Step step) {
    List<String> notes = new ArrayList<>();
    if (step.a().isEmpty() || step.b().isEmpty()) {
      Side only = step.a().orElseGet(() -> step.b().get());
      notes.add(
          "only in "
              + (step.a().isPresent() ? "A" : "B")
              + (only.status().equals("ok") ? "" : ": " + status(only)));
      return notes;
    }
    Side a = step.a().get();
    Side b = step.b().get();
    if (step.statusChanged()) {
      notes.add(word(a.status()) + " → " + status(b));
    }
    if (step.attemptsChanged() && !step.isAttempt()) { // an attempt's step says it
      notes.add(attempts(b.attempts()) + " against " + a.attempts());
    }
    if (!step.attributeChanges().isEmpty()) {
      List<String> parts = new ArrayList<>();
      for (BootDiff.AttributeChange c : step.attributeChanges()) {
        String[] shown = differing(c.a().orElse(""), c.b().orElse(""));
        parts.add(
            c.key()
                + " "
                + (c.a().isPresent() ? shown[0] : "(none)")
                + " → "
                + (c.b().isPresent() ? shown[1] : "(none)"));
      }
      // the first two lines' worth: --json has them all
      List<String> lines = Text.wrap(String.join(", ", parts), NOTE_WIDTH, NOTE_WIDTH);
      notes.addAll(lines.subList(0, Math.min(lines.size(), 2)));
      if (lines.size() > 2) {
        notes.set(notes.size() - 1, Text.cut(notes.get(notes.size() - 1), NOTE_WIDTH - 2) + " …");
      }
    }
    return notes;
  }

  /**
   * Two values as a reader compares them: whole when short; else the part that differs, with what
   * both share before and after it left out ({@code …/ok/root → …/flaky/root}), each cut to {@link
   * #VALUE_WIDTH}.
   */
  static String[] differing(String a, String b) {
    if (a.length() <= VALUE_WIDTH && b.length() <= VALUE_WIDTH) {
      return new String[] {a, b};
    }
    int prefix = 0;
    int max = Math.min(a.length(), b.length());
    while (prefix < max && a.charAt(prefix) == b.charAt(prefix)) {
      prefix++;
    }
    int suffix = 0;
    while (suffix < max - prefix
        && a.charAt(a.length() - 1 - suffix) == b.charAt(b.length() - 1 - suffix)) {
      suffix++;
    }
    // back to a separator, so that a word or number is shown whole
    while (prefix > 0 && SEPARATORS.indexOf(a.charAt(prefix - 1)) < 0) {
      prefix--;
    }
    while (suffix > 0 && SEPARATORS.indexOf(a.charAt(a.length() - suffix)) < 0) {
      suffix--;
    }
    return new String[] {middle(a, prefix, suffix), middle(b, prefix, suffix)};
  }

  private static final String SEPARATORS = "/:,=;. ";

  private static String middle(String v, int prefix, int suffix) {
    String middle = Text.cut(v.substring(prefix, v.length() - suffix), VALUE_WIDTH - 2);
    return (prefix > 0 ? "…" : "") + middle + (suffix > 0 && !middle.endsWith("…") ? "…" : "");
  }

  private static String attempts(int n) {
    return n + (n == 1 ? " attempt" : " attempts");
  }

  private static String word(String status) {
    return switch (status) {
      case "error" -> "FAILED";
      case "unfinished" -> "NEVER FINISHED";
      default -> status;
    };
  }

  private static String status(Side side) {
    String word = word(side.status());
    return side.status().equals("error") && !side.message().isEmpty()
        ? word + ": " + side.message()
        : word;
  }

  /**
   * What matters, in one line: where the later boot failed first, or that it succeeded where the
   * earlier failed, or how much slower or faster it was and at which step.
   */
  public static String headline(BootDiff diff) {
    if (diff.b().failed()) {
      Optional<Step> at = diff.firstFailure();
      if (at.isPresent()) {
        Side b = at.get().b().get();
        String where = "failed first at " + at.get().name();
        if (at.get().attemptsChanged()) {
          where += ", " + attempts(b.attempts()) + " against " + at.get().a().get().attempts();
        } else if (b.attempts() > 1) {
          where += ", " + attempts(b.attempts());
        }
        return Text.printable(where + (b.message().isEmpty() ? "" : ": " + b.message()));
      }
      return Text.printable(
          diff.b()
              .verdict()
              .replaceFirst("^FAILED", "failed")
              .replaceFirst("^NEVER FINISHED", "never finished"));
    }
    if (diff.a().failed()) {
      return Text.printable(
          "succeeded where A failed"
              + diff.firstFailureOfA().map(s -> " (first at " + s.name() + ")").orElse(""));
    }
    Optional<Duration> change = diff.change();
    if (change.isEmpty()) {
      return "no dated spans to compare";
    }
    if (change.get().abs().compareTo(BootDiff.NOTICEABLE) < 0) {
      return "as fast (within " + about(BootDiff.NOTICEABLE) + ")";
    }
    String line =
        (change.get().isNegative() ? "faster" : "slower") + " by " + about(change.get().abs());
    Optional<Step> step = diff.explains();
    if (step.isEmpty()) {
      return line;
    }
    Step s = step.get();
    line += ": " + Text.printable(s.name());
    if (s.attemptsChanged()) {
      return line + ", " + attempts(s.b().get().attempts()) + " against " + s.a().get().attempts();
    }
    return line
        + ", "
        + about(s.b().get().duration().get())
        + " against "
        + about(s.a().get().duration().get());
  }

  /** The second line: how many steps differ, and how. */
  public static String summary(BootDiff diff) {
    long both = diff.steps().stream().filter(s -> s.a().isPresent() && s.b().isPresent()).count();
    long status = diff.steps().stream().filter(Step::statusChanged).count();
    long attempts = diff.steps().stream().filter(Step::attemptsChanged).count();
    long attributes = diff.steps().stream().filter(s -> !s.attributeChanges().isEmpty()).count();
    List<String> changed = new ArrayList<>();
    if (status > 0) {
      changed.add(status + " status");
    }
    if (attempts > 0) {
      changed.add(attempts + " attempts");
    }
    if (attributes > 0) {
      changed.add(attributes + " attributes");
    }
    return both
        + " steps in both, "
        + diff.onlyInA()
        + " in A only, "
        + diff.onlyInB()
        + " in B only; changed: "
        + (changed.isEmpty() ? "nothing else" : String.join(", ", changed));
  }

  /** {@code 4.2 s}, {@code 340 ms}: a change as a person says it. */
  static String about(Duration d) {
    long millis = d.toMillis();
    if (millis < 1000) {
      return millis + " ms";
    }
    long tenths = (millis + 50) / 100;
    return tenths / 10 + "." + tenths % 10 + " s";
  }
}
