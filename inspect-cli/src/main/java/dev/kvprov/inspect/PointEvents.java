package dev.kvprov.inspect;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvprov.otel.KvpRecordFormat;
import dev.kvprov.otel.KvprovRecord;
import dev.kvprov.otel.ProvisioningReport;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What {@code kvp timeline} needs from each writer besides its spans: point events (things that
 * happened at one moment) and clues to when the boot began. One method per writer: a new writer is
 * taught here.
 */
final class PointEvents {
  /**
   * One moment: a kvprov span event or log record, a cloud-init event other than start and finish,
   * an azure-init event, the provisioning report.
   *
   * @param time the wall-clock time, or null if unreadable
   * @param sinceBoot the writer's own time since boot (monotonic), or null
   * @param status {@code error} for an error-level event or a failure report, {@code ok} for a
   *     success report, else null
   */
  record Point(
      Instant time,
      Duration sinceBoot,
      String writer,
      String kind,
      String name,
      String status,
      String message) {}

  final List<Point> points = new ArrayList<>();
  private Instant kvprovBoot;
  private Long cloudInitBootEpoch;

  void add(Item item) {
    switch (item.writer()) {
      case "kvprov" -> kvprov(item);
      case "cloud-init" -> cloudInit(item);
      case "azure-init" -> azureInit(item);
      case "report" -> report(item);
      default -> {}
    }
  }

  /** The earliest boot a kvprov record implies (its wall time less its {@code Boot}), or null. */
  Instant kvprovBoot() {
    return kvprovBoot;
  }

  /**
   * The boot in cloud-init's keys, or null: the smallest, since each stage writes its own estimate,
   * truncated to whole seconds, and they differ by a second.
   */
  Instant cloudInitBoot() {
    return cloudInitBootEpoch == null ? null : Instant.ofEpochSecond(cloudInitBootEpoch);
  }

  private void kvprov(Item item) {
    // Span starts and ends are SpanForest's, which decodes them already (Timeline takes their
    // boot clues from its spans): only events and logs are read here.
    String[] key = item.key().split("\\|", 5);
    if (key.length > 3 && (key[3].equals("start") || key[3].equals("end"))) {
      return;
    }
    KvprovRecord r = KvpRecordFormat.decodeJoined(item.key(), item.value()).orElse(null);
    if (r == null) {
      return;
    }
    Optional<Instant> time = r.time();
    Optional<Duration> sinceBoot = r.sinceBoot();
    if (time.isPresent() && sinceBoot.isPresent()) {
      bootClue(time.get(), sinceBoot.get());
    }
    String status = r.level() == KvprovRecord.Level.ERROR ? "error" : null;
    String name = r.name().orElse("?");
    switch (r.kind()) {
      case EVENT ->
          points.add(point(time, sinceBoot, "event", name, status, r.field("Event").orElse("")));
      case LOG -> {
        String severity = r.field("Severity").map(s -> s + " ").orElse("");
        points.add(
            point(time, sinceBoot, "log", name, status, severity + r.field("Body").orElse("")));
      }
      default -> {}
    }
  }

  /** One kvprov clue: a wall time and the monotonic time since boot at that moment. */
  void bootClue(Instant time, Duration sinceBoot) {
    Instant boot;
    try {
      boot = time.minus(sinceBoot);
    } catch (DateTimeException e) {
      return; // a damaged record near the ends of time
    }
    kvprovBoot = kvprovBoot == null || boot.isBefore(kvprovBoot) ? boot : kvprovBoot;
  }

  private static Point point(
      Optional<Instant> time,
      Optional<Duration> sinceBoot,
      String kind,
      String name,
      String status,
      String message) {
    return new Point(
        time.orElse(null), sinceBoot.orElse(null), "kvprov", kind, name, status, message);
  }

  /** Start and finish events are spans (SpanForest's); every other type is a point. */
  private void cloudInit(Item item) {
    String[] key = item.key().split("\\|", 3);
    if (key.length > 1 && key[1].matches("\\d{1,12}")) {
      long epoch = Long.parseLong(key[1]);
      cloudInitBootEpoch = cloudInitBootEpoch == null ? epoch : Math.min(epoch, cloudInitBootEpoch);
    }
    JsonNode event = Events.of(item);
    if (event == null) {
      return;
    }
    String type = event.path("type").asText("");
    if (type.equals("start") || type.equals("finish")) {
      return;
    }
    String message = event.path("msg").asText("");
    if (type.equals("compressed")) {
      // A base64 blob says nothing on a timeline.
      message = "compressed, " + message.length() + " chars: kvp decode shows it";
    }
    String status = event.path("result").asText("SUCCESS").equals("FAIL") ? "error" : null;
    points.add(
        new Point(
            SpanForest.time(event.path("ts").asText("")),
            null,
            "cloud-init",
            type,
            event.path("name").asText(""),
            status,
            message));
  }

  /** azure-init's events ({@code Time: … | Event: …}); its span records are SpanForest's. */
  private void azureInit(Item item) {
    AzureInitRecord.parse(item.key(), item.value())
        .filter(r -> !r.isSpan())
        .ifPresent(
            r ->
                points.add(
                    new Point(
                        r.start().orElse(null),
                        null,
                        "azure-init",
                        "event",
                        r.name(),
                        r.level().equals("ERROR") ? "error" : null,
                        r.message().orElse(""))));
  }

  /** Dated by its {@code timestamp} field; an unreadable report has no time (left out). */
  private void report(Item item) {
    ProvisioningReport report;
    try {
      report = ProvisioningReport.parse(item.value());
    } catch (IllegalArgumentException e) {
      points.add(new Point(null, null, "report", "report", item.key(), "error", item.value()));
      return;
    }
    StringBuilder message = new StringBuilder("result=" + report.get("result").orElse("?"));
    report.get("reason").ifPresent(r -> message.append(", reason=").append(r));
    report.get("agent").ifPresent(a -> message.append(", agent=").append(a));
    points.add(
        new Point(
            report.get("timestamp").map(SpanForest::time).orElse(null),
            null,
            "report",
            "report",
            item.key(),
            report.isSuccess() ? "ok" : "error",
            message.toString()));
  }
}
