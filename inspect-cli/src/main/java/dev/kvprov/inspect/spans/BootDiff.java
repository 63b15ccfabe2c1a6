package dev.kvprov.inspect.spans;

import dev.kvprov.inspect.writers.SpanForest;
import dev.kvprov.inspect.writers.SpanNode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Two boots step by step, for {@code kvp diff}: {@code a} the earlier (what was expected), {@code
 * b} the later. A step is a span's path from its writer's root ({@code provision/imds.fetch}):
 * spans at the same path are the runs of one step (three {@code imds.attempt} spans are one step
 * that ran three times), and their children are merged, so steps match whatever their ids or times.
 *
 * @param steps in tree order: b's order, then the steps only a has, each under its parent
 */
public record BootDiff(Boot a, Boot b, List<Step> steps) {
  /** Attributes that the runs and messages already say: an attempt's number, kvprov's warning. */
  private static final Set<String> SAID_OTHERWISE = Set.of("attempt", "kvprov.warning");

  /** Changes of overall time smaller than this are "as fast": a boot's own jitter. */
  public static final Duration NOTICEABLE = Duration.ofMillis(100);

  /**
   * One boot as compared.
   *
   * @param title {@code boot 2 of 3, <time>: <verdict>}; for a file of its own {@code <time>:
   *     <verdict>}
   * @param verdict {@code OK}, {@code FAILED: …}, {@code NEVER FINISHED: …}, as {@code kvp tree}
   *     heads a boot
   * @param source the file it was read from
   * @param duration from its first span's start to its last span's end
   */
  public record Boot(
      String title, String verdict, String source, boolean failed, Optional<Duration> duration) {
    static Boot of(BootSection section, int of, List<SpanNode> roots) {
      String verdict = section.verdict();
      boolean failed =
          !verdict.equals("OK") && !verdict.equals("no PROVISIONING_REPORT"); // nothing says so
      Instant first =
          roots.stream()
              .map(n -> n.start)
              .filter(java.util.Objects::nonNull)
              .min(Comparator.naturalOrder())
              .orElse(null);
      Instant last = SpanForest.lastTime(roots);
      Optional<Duration> duration =
          first == null || last == null
              ? Optional.empty()
              : Optional.of(Duration.between(first, last));
      String title =
          of > 0
              ? section.title(of)
              : (section.time() == null ? "" : section.time() + ": ")
                  + dev.kvprov.inspect.text.Text.printable(verdict);
      return new Boot(title, verdict, section.source.name(), failed, duration);
    }
  }

  /**
   * What one boot did at one step.
   *
   * @param runs how many spans it had at this path (an attempt tried again is another run)
   * @param attempts its attempts: the runs of its child named {@code *attempt}, else its own runs
   * @param duration the runs' durations added up; empty when none is known
   * @param status the last run's: {@code ok}, {@code error} or {@code unfinished}
   * @param message the last run's error, or its warning; else a warning of an earlier run
   * @param attributes the last run's attributes, but those {@link #SAID_OTHERWISE}
   */
  public record Side(
      int runs,
      int attempts,
      Optional<Duration> duration,
      String status,
      String message,
      Map<String, String> attributes,
      Optional<Instant> start) {}

  /** An attribute that differs: its value in a and in b (empty: the boot did not record it). */
  public record AttributeChange(String key, Optional<String> a, Optional<String> b) {}

  /**
   * One step of either boot.
   *
   * @param path the names from the writer's root, {@code /}-joined
   * @param depth 0 for a root
   */
  public record Step(
      String path,
      String name,
      String writer,
      int depth,
      Optional<Side> a,
      Optional<Side> b,
      List<AttributeChange> attributeChanges) {
    /** b's time less a's, when both are known. */
    public Optional<Duration> change() {
      return a.flatMap(Side::duration).flatMap(x -> b.flatMap(Side::duration).map(y -> y.minus(x)));
    }

    public boolean statusChanged() {
      return a.isPresent() && b.isPresent() && !a.get().status().equals(b.get().status());
    }

    public boolean attemptsChanged() {
      return a.isPresent() && b.isPresent() && a.get().attempts() != b.get().attempts();
    }

    /** Whether it is an attempt of its parent: what the parent's attempts count. */
    public boolean isAttempt() {
      return isAttempt(name);
    }

    static boolean isAttempt(String name) {
      return name.endsWith("attempt");
    }
  }

  /** b's time less a's; empty when either has no dated span. */
  public Optional<Duration> change() {
    return a.duration().flatMap(x -> b.duration().map(y -> y.minus(x)));
  }

  /**
   * Where b failed first: of its failed steps whose failure is their own (no failed step under them
   * but attempts), the one that started first. Empty when none of b's steps failed.
   */
  public Optional<Step> firstFailure() {
    return firstFailure(b().failed(), Step::b);
  }

  /** Where a failed first, as {@link #firstFailure()} for b. */
  public Optional<Step> firstFailureOfA() {
    return firstFailure(a().failed(), Step::a);
  }

  private Optional<Step> firstFailure(
      boolean failed, java.util.function.Function<Step, Optional<Side>> side) {
    Step best = null;
    for (int i = 0; i < steps.size(); i++) {
      Step step = steps.get(i);
      Optional<Side> s = side.apply(step);
      if (s.isEmpty() || !s.get().status().equals("error") || step.isAttempt()) {
        continue;
      }
      boolean own = true;
      for (int j = i + 1; j < steps.size() && steps.get(j).depth() > step.depth(); j++) {
        Step under = steps.get(j);
        Optional<Side> u = side.apply(under);
        if (!under.isAttempt() && u.isPresent() && u.get().status().equals("error")) {
          own = false;
          break;
        }
      }
      if (own && (best == null || earlier(s.get(), side.apply(best).get()))) {
        best = step;
      }
    }
    return Optional.ofNullable(best);
  }

  private static boolean earlier(Side x, Side y) {
    return x.start().isPresent()
        && (y.start().isEmpty() || x.start().get().isBefore(y.start().get()));
  }

  /**
   * The step that most explains the change of time: from the root that changed most, down into the
   * child that changed most as long as it holds at least half of its parent's change (attempts are
   * their parent's: the step that tried again is what the reader wants). Empty when the boots are
   * as fast as each other ({@link #NOTICEABLE}).
   */
  public Optional<Step> explains() {
    Optional<Duration> change = change();
    if (change.isEmpty() || change.get().abs().compareTo(NOTICEABLE) < 0) {
      return Optional.empty();
    }
    boolean slower = !change.get().isNegative();
    int at = -1;
    int depth = 0;
    Duration held = null;
    while (true) {
      int best = -1;
      Duration bestChange = null;
      int end = at < 0 ? steps.size() : next(at);
      for (int i = at + 1; i < end; i++) {
        Step step = steps.get(i);
        if (step.depth() != depth || step.isAttempt() || step.change().isEmpty()) {
          continue;
        }
        Duration c = slower ? step.change().get() : step.change().get().negated();
        if (bestChange == null || c.compareTo(bestChange) > 0) {
          best = i;
          bestChange = c;
        }
      }
      if (best < 0
          || bestChange.isNegative()
          || (held != null && bestChange.multipliedBy(2).compareTo(held) < 0)) {
        return at < 0 ? Optional.empty() : Optional.of(steps.get(at));
      }
      at = best;
      held = bestChange;
      depth++;
    }
  }

  /** The index after the last step under {@code steps[i]}. */
  private int next(int i) {
    int j = i + 1;
    while (j < steps.size() && steps.get(j).depth() > steps.get(i).depth()) {
      j++;
    }
    return j;
  }

  /** The steps that are in one boot only. */
  public long onlyInA() {
    return steps.stream().filter(s -> s.b().isEmpty()).count();
  }

  public long onlyInB() {
    return steps.stream().filter(s -> s.a().isEmpty()).count();
  }

  /**
   * Compares two boots.
   *
   * @param of how many boots there are under the root they come from; 0 for files of their own
   */
  public static BootDiff of(BootSection a, BootSection b, int of) {
    List<SpanNode> rootsA = a.roots();
    List<SpanNode> rootsB = b.roots();
    Map<String, Group> groupsA = groups(rootsA);
    Map<String, Group> groupsB = groups(rootsB);
    List<Step> steps = new ArrayList<>();
    merge(groupsA, groupsB, steps);
    return new BootDiff(Boot.of(a, of, rootsA), Boot.of(b, of, rootsB), List.copyOf(steps));
  }

  /** The spans of one boot at one path, and the paths under them, in the order first seen. */
  private static final class Group {
    final String name;
    final String writer;
    final int depth;
    final List<SpanNode> runs = new ArrayList<>();
    final Set<String> children = new LinkedHashSet<>();

    Group(String name, String writer, int depth) {
      this.name = name;
      this.writer = writer;
      this.depth = depth;
    }
  }

  /** Key of the roots' "parent". */
  private static final String TOP = "";

  private static String key(String parent, SpanNode node) {
    // the writer is part of the path: cloud-init's and kvprov's steps never match each other
    return parent.isEmpty() ? node.writer.name() + ":" + node.name : parent + "/" + node.name;
  }

  private static Map<String, Group> groups(List<SpanNode> roots) {
    Map<String, Group> groups = new LinkedHashMap<>();
    groups.put(TOP, new Group("", "", -1));
    // A loop, not recursion: a damaged pool can nest spans deeply (SpanForest caps it at 64).
    record Todo(String parent, SpanNode node, int depth) {}
    java.util.Deque<Todo> todo = new java.util.ArrayDeque<>();
    for (int i = roots.size() - 1; i >= 0; i--) {
      todo.push(new Todo(TOP, roots.get(i), 0));
    }
    while (!todo.isEmpty()) {
      Todo t = todo.pop();
      String key = key(t.parent(), t.node());
      groups.get(t.parent()).children.add(key);
      Group group =
          groups.computeIfAbsent(
              key, k -> new Group(t.node().name, t.node().writer.name(), t.depth()));
      group.runs.add(t.node());
      List<SpanNode> children = t.node().children;
      for (int i = children.size() - 1; i >= 0; i--) {
        todo.push(new Todo(key, children.get(i), t.depth() + 1));
      }
    }
    return groups;
  }

  /** Every step, depth first: under each, b's children in b's order, then those only a has. */
  private static void merge(Map<String, Group> a, Map<String, Group> b, List<Step> out) {
    java.util.Deque<String> todo = new java.util.ArrayDeque<>();
    pushChildren(TOP, a, b, todo);
    while (!todo.isEmpty()) {
      String key = todo.pop();
      Group ga = a.get(key);
      Group gb = b.get(key);
      Group any = gb != null ? gb : ga;
      Optional<Side> sa = side(ga, a);
      Optional<Side> sb = side(gb, b);
      out.add(
          new Step(
              key.substring(key.indexOf(':') + 1),
              any.name,
              any.writer,
              any.depth,
              sa,
              sb,
              attributeChanges(sa, sb)));
      pushChildren(key, a, b, todo);
    }
  }

  private static void pushChildren(
      String key, Map<String, Group> a, Map<String, Group> b, java.util.Deque<String> todo) {
    Set<String> children = new LinkedHashSet<>();
    if (b.containsKey(key)) {
      children.addAll(b.get(key).children);
    }
    if (a.containsKey(key)) {
      children.addAll(a.get(key).children);
    }
    List<String> ordered = new ArrayList<>(children);
    for (int i = ordered.size() - 1; i >= 0; i--) {
      todo.push(ordered.get(i));
    }
  }

  private static Optional<Side> side(Group group, Map<String, Group> all) {
    if (group == null) {
      return Optional.empty();
    }
    SpanNode last = group.runs.get(group.runs.size() - 1);
    Duration total = null;
    for (SpanNode run : group.runs) {
      if (run.duration() != null) {
        total = total == null ? run.duration() : total.plus(run.duration());
      }
    }
    int attempts = 0;
    for (String child : group.children) {
      Group c = all.get(child);
      if (Step.isAttempt(c.name)) {
        attempts = Math.max(attempts, c.runs.size());
      }
    }
    if (attempts == 0) {
      attempts = group.runs.size();
    }
    String message = last.message;
    for (int i = group.runs.size() - 1; i >= 0 && message.isEmpty(); i--) {
      message = group.runs.get(i).message;
    }
    Map<String, String> attributes = new TreeMap<>();
    last.attributes.forEach(
        (k, v) -> {
          if (!SAID_OTHERWISE.contains(k.getKey())) {
            attributes.put(k.getKey(), String.valueOf(v));
          }
        });
    return Optional.of(
        new Side(
            group.runs.size(),
            attempts,
            Optional.ofNullable(total),
            last.status,
            message,
            java.util.Collections.unmodifiableMap(attributes),
            Optional.ofNullable(group.runs.get(0).start)));
  }

  private static List<AttributeChange> attributeChanges(Optional<Side> a, Optional<Side> b) {
    if (a.isEmpty() || b.isEmpty()) {
      return List.of();
    }
    Set<String> keys = new java.util.TreeSet<>(a.get().attributes().keySet());
    keys.addAll(b.get().attributes().keySet());
    List<AttributeChange> changes = new ArrayList<>();
    for (String key : keys) {
      Optional<String> x = Optional.ofNullable(a.get().attributes().get(key));
      Optional<String> y = Optional.ofNullable(b.get().attributes().get(key));
      if (!x.equals(y)) {
        changes.add(new AttributeChange(key, x, y));
      }
    }
    return List.copyOf(changes);
  }
}
