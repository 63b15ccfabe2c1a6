package dev.kvprov.inspect.spans;

import dev.kvprov.inspect.pool.PoolSource;
import dev.kvprov.inspect.text.Text;
import dev.kvprov.inspect.writers.Item;
import dev.kvprov.inspect.writers.ItemPasses;
import dev.kvprov.inspect.writers.ItemReader;
import dev.kvprov.inspect.writers.PointEvents;
import dev.kvprov.inspect.writers.SpanForest;
import dev.kvprov.inspect.writers.SpanNode;
import dev.kvprov.inspect.writers.Writers;
import dev.kvprov.otel.ProvisioningReport;
import dev.kvprov.otel.ProvisioningStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * One boot as a pool file holds it: with {@code --root}, every archive of an earlier boot and the
 * live pool are each a boot of their own, shown as sections (never one list) with the boot's time,
 * its file and its verdict.
 */
public final class BootSection {
  public final int number;
  public final PoolSource source;
  private final ItemPasses passes = new ItemPasses();
  public final SpanForest forest = new SpanForest(passes);
  final PointEvents events = new PointEvents(passes);
  private String report;
  private List<SpanNode> roots;

  private BootSection(int number, PoolSource source) {
    this.number = number;
    this.source = source;
  }

  private boolean alreadyProvisioned;

  /** A boot its caller fills item by item, in pool order, on one thread: a VM of kvp fleet. */
  public static BootSection of(PoolSource source) {
    return new BootSection(1, source);
  }

  /** Adds the boot's next item. */
  public void add(Item item) {
    add(read(item));
  }

  /** An item and what its writer made of it, worked out on any core by a section's passes. */
  public static final class Prepared {
    private final Item item;
    private final ItemReader.Ready read;

    private Prepared(Item item, ItemReader.Ready read) {
      this.item = item;
      this.read = read;
    }
  }

  private Prepared read(Item item) {
    return new Prepared(item, passes.read(item));
  }

  private void add(Prepared read) {
    Item item = read.item;
    events.add(read.read); // and its spans: the forest shares the passes
    if (item.writer() == Writers.REPORT) {
      report = item.value();
    } else if (item.writer() == Writers.KVPROV
        && item.value().contains(ProvisioningStatus.ALREADY_PROVISIONED)) {
      alreadyProvisioned = true;
    }
  }

  /** The boot's PROVISIONING_REPORT as stored (the last, should there be two), or null. */
  public String report() {
    return report;
  }

  /** Whether kvprov found the VM provisioned and reported Ready on an earlier boot. */
  public boolean alreadyProvisioned() {
    return alreadyProvisioned;
  }

  /** The spans that started and never ended, outermost first. */
  public List<SpanNode> unfinished() {
    return SpanForest.unfinished(roots());
  }

  /** When the boot's last span ended or last event happened: where an unfinished one stands. */
  public Instant lastTime() {
    return SpanForest.lastTime(roots());
  }

  /** The spans, once every item is in. */
  public List<SpanNode> roots() {
    if (roots == null) {
      roots = forest.finish();
    }
    return roots;
  }

  /** Its timeline: rows since its boot ({@code bootTime} when given, else what it tells). */
  public Timeline timeline(Instant bootTime) {
    return Timeline.of(roots(), events, bootTime);
  }

  /** When the boot began, as well as its records tell: its timeline's boot, or its first event. */
  Instant time() {
    Timeline.Boot boot = timeline(null).boot;
    return boot.time() != null ? boot.time() : boot.origin();
  }

  /**
   * Where a failed run failed, as its spans say: the first failed step under the run, and the run's
   * own error (kvprov's says the exit status); empty when they say nothing.
   */
  private String failedWhere() {
    for (SpanNode run : roots()) {
      if (!run.status.equals("error")) {
        continue;
      }
      String step =
          run.children.stream()
              .filter(c -> c.status.equals("error"))
              .map(c -> c.name)
              .findFirst()
              .orElse(null);
      String how = run.message.isEmpty() ? null : run.message;
      if (step != null || how != null) {
        return " ("
            + (step == null ? "" : "step " + step)
            + (step != null && how != null ? ", " : "")
            + (how == null ? "" : how)
            + ")";
      }
    }
    return "";
  }

  /** {@code OK}, {@code FAILED: reason}, {@code NEVER FINISHED: step}, or {@code no report}. */
  public String verdict() {
    if (report != null) {
      try {
        ProvisioningReport r = ProvisioningReport.parse(report);
        return r.isSuccess()
            ? "OK"
            : "FAILED: " + r.get("reason").orElse("(no reason given)") + failedWhere();
      } catch (IllegalArgumentException e) {
        return "an unreadable PROVISIONING_REPORT";
      }
    }
    List<SpanNode> open = unfinished();
    if (!open.isEmpty()) {
      return "NEVER FINISHED: " + open.get(open.size() - 1).name;
    }
    return alreadyProvisioned ? "OK" : "no PROVISIONING_REPORT";
  }

  /**
   * Two lines for a terminal: {@code == boot 2 of 3, 2026-11-22T04:39:15Z: FAILED: reason}, then
   * the file it was read from, indented.
   */
  public String header(int of) {
    return "== " + title(of) + "\n   " + Text.printable(source.name());
  }

  /** {@code boot 2 of 3, 2026-11-22T04:39:15Z: FAILED: reason} */
  public String title(int of) {
    Instant time = time();
    return "boot "
        + number
        + " of "
        + of
        + (time == null ? "" : ", " + time)
        + ": "
        + Text.printable(verdict());
  }

  /**
   * Sections being filled as a reading hands items on: one per source, oldest boot first. Items are
   * put together and {@link #read} on every core; each boot takes its own, in order. An item is
   * read only after its source's section is made (a reading hands a source's items on only after it
   * asks for that source's sink), so the section being filled is the item's.
   */
  public static final class Filling {
    private final List<BootSection> sections = new ArrayList<>();
    private volatile BootSection filling;

    /** What the section being filled makes of an item: on any core. */
    public Prepared read(Item item) {
      return filling.read(item);
    }

    /** A new section for {@code source}, and where its prepared items go, in pool order. */
    public java.util.function.Consumer<Prepared> next(PoolSource source) {
      BootSection section = new BootSection(sections.size() + 1, source);
      sections.add(section);
      filling = section;
      return section::add;
    }

    public List<BootSection> sections() {
      return sections;
    }
  }
}
