package dev.kvprov.inspect.writers;

import dev.kvprov.otel.ProvisioningReport;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** The {@code PROVISIONING_REPORT} the platform reads, whoever wrote it. */
final class ReportWriter extends Writer {
  ReportWriter() {
    super("report", "#f28e2b");
  }

  @Override
  boolean owns(String key) {
    return key.equals("PROVISIONING_REPORT");
  }

  @Override
  Optional<Event> event(Item item) {
    ProvisioningReport report;
    try {
      report = ProvisioningReport.parse(item.value());
    } catch (RuntimeException e) {
      return Optional.empty();
    }
    Map<String, String> attributes = new LinkedHashMap<>();
    report.get("agent").ifPresent(a -> attributes.put("agent", a));
    report.get("vm_id").ifPresent(v -> attributes.put("vm_id", v));
    return Optional.of(
        new Event(
            "report",
            Optional.of("PROVISIONING_REPORT"),
            Optional.empty(),
            report.get("result"),
            Event.Times.at(report.get("timestamp")),
            report.get("reason"),
            attributes,
            Optional.empty()));
  }

  /** Dated by its {@code timestamp} field; an unreadable report has no time (left out). */
  @Override
  PointReader points() {
    return (item, reading, points) -> {
      ProvisioningReport report;
      try {
        report = ProvisioningReport.parse(item.value());
      } catch (IllegalArgumentException e) {
        points.add(
            new PointEvents.Point(null, null, name(), "report", item.key(), "error", item.value()));
        return;
      }
      StringBuilder message = new StringBuilder("result=" + report.get("result").orElse("?"));
      report.get("reason").ifPresent(r -> message.append(", reason=").append(r));
      report.get("agent").ifPresent(a -> message.append(", agent=").append(a));
      points.add(
          new PointEvents.Point(
              report.get("timestamp").map(SpanForest::time).orElse(null),
              null,
              name(),
              "report",
              item.key(),
              report.isSuccess() ? "ok" : "error",
              message.toString()));
    };
  }

  /** The VM the report names: the pool's, not its own writer's (the report names none). */
  @Override
  public Origin origin(Item item) {
    try {
      return ProvisioningReport.parse(item.value())
          .get("vm_id")
          .map(id -> new Origin(id, true, null))
          .orElse(Origin.NONE);
    } catch (IllegalArgumentException e) {
      return Origin.NONE; // not a report after all: it names no VM
    }
  }
}
