package dev.kvprov.inspect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvprov.otel.ProvisioningReport;
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
  JsonNode event(Item item) {
    ProvisioningReport report;
    try {
      report = ProvisioningReport.parse(item.value());
    } catch (RuntimeException e) {
      return null;
    }
    ObjectNode node = Json.object();
    node.put("type", "report");
    node.put("name", "PROVISIONING_REPORT");
    put(node, "time", report.get("timestamp"));
    put(node, "status", report.get("result"));
    put(node, "message", report.get("reason"));
    put(node, "agent", report.get("agent"));
    put(node, "vm_id", report.get("vm_id"));
    return node;
  }

  private static void put(ObjectNode node, String field, Optional<String> value) {
    value.ifPresent(v -> node.put(field, v));
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
  Origin origin(Item item) {
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
