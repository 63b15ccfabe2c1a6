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
}
