package dev.kvprov.agent.provision;

import static java.util.Objects.requireNonNull;

import dev.kvprov.agent.config.AgentConfig;
import dev.kvprov.agent.net.NetworkSnapshot;
import dev.kvprov.agent.os.SystemRoot;
import dev.kvprov.agent.state.VerdictGenerations;
import dev.kvprov.agent.wireserver.Health;
import dev.kvprov.agent.wireserver.WireserverClient;
import dev.kvprov.agent.wireserver.WireserverException;
import dev.kvprov.kvp.IoErrors;
import dev.kvprov.kvp.VmId;
import dev.kvprov.otel.KvpTelemetry;
import dev.kvprov.otel.ProvisioningReport;
import io.opentelemetry.api.logs.Severity;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * How the platform learns the outcome: the health report to the wireserver and the {@code
 * PROVISIONING_REPORT} in KVP, which says the same thing. Used by the whole run and by {@code
 * kvprov report} for agents and units that provision without it.
 */
public final class PlatformReport {
  private final AgentConfig.Wireserver settings;
  private final WireserverClient wireserver;
  private final KvpTelemetry telemetry;
  private final VmId vmId;
  private final String agent;
  private final VerdictGenerations verdicts;
  private FailureContext context = wireserverOutcome -> Map.of();

  /**
   * What a failure report adds about the VM (the network snapshot), given what the run learned of
   * the wireserver when that is what failed.
   */
  @FunctionalInterface
  interface FailureContext {
    Map<String, String> fields(java.util.Optional<String> wireserverOutcome)
        throws InterruptedException;
  }

  /**
   * @param verdicts where each report takes its number first, so that a run's report never replaces
   *     a newer run's (the same the telemetry's late writer was given)
   * @param agentVersion kvprov's version, e.g. {@code 0.1.0}
   */
  public PlatformReport(
      AgentConfig.Wireserver settings,
      KvpTelemetry telemetry,
      VerdictGenerations verdicts,
      VmId vmId,
      String agentVersion) {
    this.settings = requireNonNull(settings, "settings");
    this.telemetry = requireNonNull(telemetry, "telemetry");
    this.verdicts = requireNonNull(verdicts, "verdicts");
    this.vmId = requireNonNull(vmId, "vmId");
    this.agent = "kvprov/" + agentVersion;
    this.wireserver = new WireserverClient(settings, "kvprov v" + agentVersion, telemetry.tracer());
  }

  /** Adds {@code context}'s fields to every failure this reports (none by default). */
  void onFailure(FailureContext context) {
    this.context = requireNonNull(context, "context");
  }

  /**
   * How long the network snapshot waits for a TCP connection to a wireserver not spoken to yet: a
   * VM without network fails at once or not at all, and a failing boot is not held up.
   */
  static final Duration WIRESERVER_PROBE = Duration.ofMillis(300);

  /**
   * Every failure this reports carries the network as it is then, read under {@code root}: the span
   * {@value NetworkSnapshot#SPAN} and its summary as the field {@code network}, so that the host
   * sees why the platform was out of reach — whether {@code provision} failed or a script reports
   * its own failure.
   *
   * @param imds what the caller learned of IMDS ({@code not asked} when it did not)
   * @param wireserver what the caller knows of the wireserver when a failure does not say (Ready's
   *     does); empty: one TCP connection finds out
   */
  public void withNetworkSnapshot(
      SystemRoot root, Supplier<String> imds, Optional<String> wireserver) {
    requireNonNull(root, "root");
    requireNonNull(imds, "imds");
    requireNonNull(wireserver, "wireserver");
    onFailure(
        wireserverOutcome -> {
          // started first: its duration is what the snapshot cost the failing boot, probe included
          Span span = telemetry.tracer().spanBuilder(NetworkSnapshot.SPAN).startSpan();
          try {
            String outcome =
                wireserverOutcome
                    .or(() -> wireserver)
                    .orElseGet(() -> NetworkSnapshot.probe(settings.endpoint(), WIRESERVER_PROBE));
            NetworkSnapshot snapshot =
                NetworkSnapshot.read(root, imds.get(), outcome, Instant.now());
            snapshot.describe(span);
            return Map.of("network", snapshot.summary());
          } catch (RuntimeException e) {
            // The snapshot is a courtesy to the failure report it rides on: a flaw in it must not
            // lose that report. No message of the exception's: it may name Java types.
            span.setStatus(StatusCode.ERROR, "the network snapshot failed");
            return Map.of("network", "not taken (an internal error)");
          } finally {
            span.end();
          }
        });
  }

  /** The wireserver client, for the optional in-progress report. */
  WireserverClient wireserver() {
    return wireserver;
  }

  /**
   * Ready to the wireserver. When it does not accept it, the report in KVP says so; when it does,
   * {@link #succeeded()} writes the success report, once the caller's bookkeeping is done.
   *
   * @return whether the platform accepted Ready
   */
  public boolean ready() throws InterruptedException {
    try {
      wireserver.report(Health.ready());
      return true;
    } catch (WireserverException e) {
      Map<String, String> supporting = new LinkedHashMap<>();
      supporting.put("step", "report_ready");
      supporting.put("exit_code", String.valueOf(ProvisioningRun.Exit.REPORT.code));
      supporting.put("detail", String.valueOf(e.getMessage()));
      supporting.putAll(
          context.fields(java.util.Optional.of("failed (" + ProvisioningRun.lastCause(e) + ")")));
      report(failure("Failed to report ready", supporting));
      return false;
    }
  }

  /**
   * Ready for a Savable VM's pool: one attempt ({@link WireserverClient#reportOnce}), since the
   * platform takes the NIC as soon as it hears it and the answer is often lost. An unconfirmed
   * Ready is not a failure: KVP gets no report, and the caller's span a warning event.
   *
   * @return the reason it is not confirmed; empty when the platform accepted it
   */
  Optional<String> readyForPool() throws InterruptedException {
    try {
      wireserver.reportOnce(Health.ready());
      return Optional.empty();
    } catch (WireserverException e) {
      return Optional.of(String.valueOf(e.getMessage()));
    }
  }

  /**
   * The success report in KVP (replacing any failure).
   *
   * @return whether KVP has it
   */
  public boolean succeeded() {
    return succeeded(Map.of());
  }

  /** The success report, with supporting data (e.g. {@code source=ovf}). */
  public boolean succeeded(Map<String, String> supporting) {
    return report(ProvisioningReport.success(agent, vmId.value(), Instant.now(), supporting));
  }

  /**
   * The failure, in KVP and (unless {@code kvpOnly}) to the wireserver as NotReady with the same
   * text, masked.
   *
   * @param reason the short, stable reason the platform's alerting keys on
   * @param supporting the step, the exit code, the detail…
   * @return whether every place it was meant for has it
   */
  public boolean failed(String reason, Map<String, String> supporting, boolean kvpOnly)
      throws InterruptedException {
    Map<String, String> fields = new LinkedHashMap<>(supporting);
    fields.putAll(context.fields(java.util.Optional.empty()));
    ProvisioningReport report = failure(reason, fields);
    boolean written = report(report);
    if (kvpOnly) {
      return written;
    }
    try {
      wireserver.report(Health.failed(report.redacted(telemetry.redactor()::redact).encode()));
      return written;
    } catch (WireserverException e) {
      telemetry
          .logger()
          .logRecordBuilder()
          .setSeverity(Severity.ERROR)
          .setBody("the failure could not be reported to the wireserver: " + e.getMessage())
          .emit();
      return false;
    }
  }

  /**
   * The report into KVP, numbered first: if it waits for a held pool past the run, its late writer
   * knows whether a newer run has reported since.
   */
  private boolean report(ProvisioningReport report) {
    try {
      verdicts.take();
    } catch (IOException e) {
      telemetry
          .logger()
          .logRecordBuilder()
          .setSeverity(Severity.WARN)
          .setBody(
              "the report gets no number ("
                  + IoErrors.reason(e)
                  + "): should it wait for a held pool past this run, an older run's report could"
                  + " replace it")
          .emit();
    }
    return telemetry.report(report);
  }

  private ProvisioningReport failure(String reason, Map<String, String> supporting) {
    return ProvisioningReport.failure(reason, agent, vmId.value(), Instant.now(), supporting);
  }
}
