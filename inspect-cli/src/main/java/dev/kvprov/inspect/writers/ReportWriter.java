package dev.kvprov.inspect.writers;

import dev.kvprov.otel.ProvisioningReport;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** The {@code PROVISIONING_REPORT} the platform reads, whoever wrote it. */
final class ReportWriter {
  static final Writer WRITER =
      new Writer(
          "report",
          "#f28e2b",
          new RecordRule() {
            @Override
            boolean owns(String key) {
              return key.equals("PROVISIONING_REPORT");
            }
          },
          new Reader());

  private ReportWriter() {}

  /** Its item: the report, parsed once, for its event, its point and its VM. */
  private static final class Reader extends ItemReader<ProvisioningReport> {
    /** The report, parsed; empty when it does not parse. */
    @Override
    Optional<ProvisioningReport> reading(Item item) {
      try {
        return Optional.of(ProvisioningReport.parse(item.value()));
      } catch (RuntimeException e) {
        return Optional.empty();
      }
    }

    @Override
    Optional<Event> event(Item item, ProvisioningReport report) {
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
    PointReader<ProvisioningReport> points() {
      return (item, reading, points) -> {
        if (reading.isEmpty()) {
          points.add(
              new PointEvents.Point(
                  null, null, WRITER.name(), "report", item.key(), "error", item.value()));
          return;
        }
        ProvisioningReport report = reading.get();
        StringBuilder message = new StringBuilder("result=" + report.get("result").orElse("?"));
        report.get("reason").ifPresent(r -> message.append(", reason=").append(r));
        report.get("agent").ifPresent(a -> message.append(", agent=").append(a));
        points.add(
            new PointEvents.Point(
                report.get("timestamp").map(SpanForest::time).orElse(null),
                null,
                WRITER.name(),
                "report",
                item.key(),
                report.isSuccess() ? "ok" : "error",
                message.toString()));
      };
    }

    /** The VM the report names: the pool's, not its own writer's (the report names none). */
    @Override
    public Origin origin(Item item) {
      // not a report after all: it names no VM
      return reading(item)
          .flatMap(report -> report.get("vm_id"))
          .map(id -> new Origin(id, true, null))
          .orElse(Origin.NONE);
    }
  }
}
