package dev.kvprov.otel;

import static java.util.Objects.requireNonNull;

import dev.kvprov.kvp.BootClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Where provisioning is — not started, running (at which step), succeeded, or failed (why) — from
 * the last boot's records and kvprov's markers: the one answer behind {@code kvp status} and {@code
 * kvprov status}, said the same way by both.
 *
 * @param state where provisioning is
 * @param reason a failure's reason, or null
 * @param step the step a running (or hung) run is at, or null
 * @param since when that step started; or when the report was written; or null
 * @param report the report, or null
 * @param markers kvprov's markers found ({@code <vm id>.provisioned}, {@code <vm id>.ready})
 */
public record ProvisioningStatus(
    State state,
    String reason,
    String step,
    Instant since,
    ProvisioningReport report,
    List<String> markers) {
  /**
   * The exit status of a status with no verdict yet, in both commands ({@code kvp status}, {@code
   * kvprov status}): their exit codes say it from here, as their help says {@link
   * #NO_VERDICT_MEANING} and {@link #NO_VERDICT_WHEN}.
   */
  public static final int NO_VERDICT = 4;

  /** What {@link #NO_VERDICT} means. */
  public static final String NO_VERDICT_MEANING = "no verdict yet";

  /** When a status command ends with {@link #NO_VERDICT}. */
  public static final String NO_VERDICT_WHEN =
      "not started, or running: without --wait, or when --wait's --timeout ran out";

  /** What kvprov logs on every boot after the one that provisioned the VM. */
  public static final String ALREADY_PROVISIONED = "already provisioned and reported Ready";

  /** Where provisioning is. */
  public enum State {
    NOT_STARTED("not started"),
    RUNNING("running"),
    SUCCEEDED("succeeded"),
    FAILED("failed");

    private final String words;

    State(String words) {
      this.words = words;
    }

    /** As people say it: {@code not started}. */
    public String words() {
      return words;
    }
  }

  /** A span that started and has not ended. */
  public record OpenSpan(String name, Instant start) {
    public OpenSpan {
      requireNonNull(name, "name");
      requireNonNull(start, "start");
    }
  }

  public ProvisioningStatus {
    requireNonNull(state, "state");
    markers = List.copyOf(markers);
  }

  /**
   * Nothing of this boot in the pool: not started — unless this VM's Ready marker says it was
   * reported Ready on an earlier boot, whose pool has been cleared since.
   */
  public static ProvisioningStatus notStarted(List<String> markers) {
    return markers.stream().anyMatch(m -> m.endsWith(".ready"))
        ? new ProvisioningStatus(State.SUCCEEDED, null, null, null, null, markers)
        : new ProvisioningStatus(State.NOT_STARTED, null, null, null, null, markers);
  }

  /**
   * The verdict of the last boot.
   *
   * @param rawReport its {@code PROVISIONING_REPORT} as stored, or null
   * @param open its spans that have not ended, by start time: the last is the step it is at
   * @param alreadyProvisioned whether kvprov found the VM provisioned on an earlier boot
   * @param markers kvprov's markers
   */
  public static ProvisioningStatus of(
      String rawReport, List<OpenSpan> open, boolean alreadyProvisioned, List<String> markers) {
    if (rawReport != null) {
      try {
        ProvisioningReport report = ProvisioningReport.parse(rawReport);
        Instant at = report.get("timestamp").map(ProvisioningStatus::time).orElse(null);
        return report.isSuccess()
            ? new ProvisioningStatus(State.SUCCEEDED, null, null, at, report, markers)
            : new ProvisioningStatus(
                State.FAILED,
                report.get("reason").orElse("(no reason given)"),
                null,
                at,
                report,
                markers);
      } catch (IllegalArgumentException e) {
        return new ProvisioningStatus(
            State.FAILED,
            "the PROVISIONING_REPORT does not read: " + rawReport,
            null,
            null,
            null,
            markers);
      }
    }
    if (!open.isEmpty()) {
      OpenSpan step = open.get(open.size() - 1);
      return new ProvisioningStatus(State.RUNNING, null, step.name(), step.start(), null, markers);
    }
    if (alreadyProvisioned) {
      return new ProvisioningStatus(State.SUCCEEDED, null, null, null, null, markers);
    }
    return notStarted(markers);
  }

  /** A report's time: RFC 3339, or the same without its zone (taken as UTC). */
  static Instant time(String text) {
    Instant parsed = Rfc3339.parseOrNull(text);
    if (parsed == null && text.length() >= 19 && text.length() <= 29 && text.indexOf('Z') < 0) {
      parsed = Rfc3339.parseOrNull(text + "Z");
    }
    return parsed;
  }

  /** 0 succeeded, 1 failed, {@link #NO_VERDICT} not started or running. */
  public int exitCode() {
    return switch (state) {
      case SUCCEEDED -> 0;
      case FAILED -> 1;
      case NOT_STARTED, RUNNING -> NO_VERDICT;
    };
  }

  /** Whether there is a verdict, succeeded or failed. */
  public boolean decided() {
    return state == State.SUCCEEDED || state == State.FAILED;
  }

  /** For people: {@code status: failed}, then what else there is; {@code pool} says where. */
  public List<String> lines(String pool) {
    List<String> lines = new ArrayList<>();
    lines.add("status:   " + state.words());
    if (reason != null) {
      lines.add("reason:   " + Printable.of(reason));
    }
    if (step != null) {
      lines.add("step:     " + Printable.of(step) + ", since " + since);
    } else if (since != null) {
      lines.add("at:       " + since);
    }
    if (report != null) {
      lines.add("report:   by " + Printable.of(report.get("agent").orElse("an unnamed agent")));
    }
    lines.add("markers:  " + (markers.isEmpty() ? "none" : String.join(", ", markers)));
    lines.add("pool:     " + Printable.of(pool));
    return lines;
  }

  /**
   * For scripts: {@code status, reason, step, since, report, markers, pool}, in that order (report
   * a map of its fields, markers a list; absent values null).
   */
  public Map<String, Object> fields(String pool) {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("status", state.words());
    fields.put("reason", reason);
    fields.put("step", step);
    fields.put("since", since == null ? null : since.toString());
    if (report == null) {
      fields.put("report", null);
    } else {
      Map<String, String> reportFields = new LinkedHashMap<>();
      report.fields().forEach(f -> reportFields.put(f.key(), f.value()));
      fields.put("report", reportFields);
    }
    fields.put("markers", markers);
    fields.put("pool", pool);
    return fields;
  }

  /**
   * kvprov's markers in its state directory ({@code /var/lib/kvprov}), sorted; of {@code vmId}
   * alone when given (an image may carry the markers of the VM it was captured from). None when
   * unreadable.
   */
  public static List<String> markers(Path stateDirectory, String vmId) {
    List<String> found = new ArrayList<>();
    try (Stream<Path> files = Files.list(stateDirectory)) {
      files
          .map(f -> f.getFileName().toString())
          .filter(n -> n.endsWith(".provisioned") || n.endsWith(".ready"))
          .filter(n -> vmId == null || n.startsWith(vmId + "."))
          .sorted()
          .forEach(found::add);
    } catch (IOException e) {
      // none, or not readable by this user: the pool alone decides
    }
    return found;
  }

  /**
   * Whether the running system's pool has nothing of this boot: missing, empty, or last written
   * before this boot began (the last boot's, which this boot's first writer will clear).
   */
  public static boolean nothingThisBoot(Path pool) {
    try {
      if (!Files.exists(pool) || Files.size(pool) == 0) {
        return true;
      }
    } catch (IOException e) {
      return false; // reading it says why
    }
    try {
      return !Files.getLastModifiedTime(pool).toInstant().isAfter(BootClock.system().bootTime());
    } catch (IOException | RuntimeException e) {
      return false; // no boot clock (not Linux): the pool decides
    }
  }
}
