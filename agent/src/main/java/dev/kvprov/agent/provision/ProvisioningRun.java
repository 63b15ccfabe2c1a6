package dev.kvprov.agent.provision;

import static java.util.Objects.requireNonNull;

import dev.kvprov.agent.config.AgentConfig;
import dev.kvprov.agent.imds.ImdsClient;
import dev.kvprov.agent.imds.ImdsException;
import dev.kvprov.agent.imds.ImdsInstance;
import dev.kvprov.agent.os.CommandRunner;
import dev.kvprov.agent.os.SystemRoot;
import dev.kvprov.agent.ovf.OvfEnvironment;
import dev.kvprov.agent.ovf.OvfException;
import dev.kvprov.agent.ovf.ProvisioningMedia;
import dev.kvprov.agent.ovf.Secret;
import dev.kvprov.agent.state.ProvisioningState;
import dev.kvprov.agent.wireserver.Health;
import dev.kvprov.agent.wireserver.WireserverClient;
import dev.kvprov.agent.wireserver.WireserverException;
import dev.kvprov.kvp.BootClock;
import dev.kvprov.kvp.IoErrors;
import dev.kvprov.kvp.VmId;
import dev.kvprov.otel.KvpTelemetry;
import dev.kvprov.otel.ProvisioningReport;
import io.opentelemetry.api.logs.Severity;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One first-boot run, in azure-facts order: markers first; IMDS; the provisioning media; the OS
 * steps; the "provisioned" marker; Ready to the wireserver, and only then the "reported" marker (so
 * a Ready that never arrived is retried next boot); the {@code PROVISIONING_REPORT} last. On a
 * failure: a report with a stable reason per step, NotReady/ProvisioningFailed with the same text,
 * and a non-zero {@link Exit} code. Telemetry failures never fail the run.
 */
public final class ProvisioningRun {
  /** The exit codes of {@code kvprov provision}. */
  public enum Exit {
    OK(0),
    CONFIG(2),
    IMDS(10),
    MEDIA(11),
    HOSTNAME(12),
    USER(13),
    PASSWORD(14),
    SUDOERS(15),
    SSHD(16),
    SSH_KEYS(17),
    REPORT(20),
    /** A defect in kvprov itself; still reported like any failure. */
    INTERNAL(30);

    public final int code;

    Exit(int code) {
      this.code = code;
    }

    static Exit forStep(String step) {
      return switch (step) {
        case "hostname" -> HOSTNAME;
        case "user" -> USER;
        case "password" -> PASSWORD;
        case "sudoers" -> SUDOERS;
        case "sshd" -> SSHD;
        default -> SSH_KEYS;
      };
    }
  }

  private final AgentConfig config;
  private final SystemRoot root;
  private final VmId vmId;
  private final ProvisioningMedia media;
  private final CommandRunner runner;
  private final KvpTelemetry telemetry;
  private final String agent;

  public ProvisioningRun(
      AgentConfig config,
      SystemRoot root,
      VmId vmId,
      ProvisioningMedia media,
      CommandRunner runner,
      KvpTelemetry telemetry,
      String agentVersion) {
    this.config = requireNonNull(config, "config");
    this.root = requireNonNull(root, "root");
    this.vmId = requireNonNull(vmId, "vmId");
    this.media = requireNonNull(media, "media");
    this.runner = requireNonNull(runner, "runner");
    this.telemetry = requireNonNull(telemetry, "telemetry");
    this.agent = "kvprov/" + agentVersion;
  }

  /** Runs, reports, and says how it ended. */
  public Exit run() throws InterruptedException {
    if (new ProvisioningState(root.resolve(config.stateDirectory().toString())).next(vmId)
        == ProvisioningState.Next.NOTHING) {
      // Every later boot: one record, nothing else.
      telemetry
          .logger()
          .logRecordBuilder()
          .setSeverity(Severity.INFO)
          .setBody("already provisioned and reported Ready for VM " + vmId + ": nothing to do")
          .emit();
      return Exit.OK;
    }
    Span span =
        telemetry.tracer().spanBuilder("provision").setAttribute("vm.id", vmId.value()).startSpan();
    try (Scope ignored = span.makeCurrent()) {
      milestones(span);
      Exit exit = runInSpan(span);
      if (exit != Exit.OK) {
        span.setStatus(StatusCode.ERROR, "exit " + exit.code + " (" + exit + ")");
      }
      return exit;
    } finally {
      span.end();
    }
  }

  private Exit runInSpan(Span span) throws InterruptedException {
    ProvisioningState state =
        new ProvisioningState(root.resolve(config.stateDirectory().toString()));
    ProvisioningState.Next next = state.next(vmId);
    span.setAttribute("next", next.name());
    WireserverClient wireserver =
        new WireserverClient(
            config.wireserver(), "kvprov v" + agent.substring(7), telemetry.tracer());
    if (next == ProvisioningState.Next.PROVISION) {
      try {
        provision(wireserver);
      } catch (ImdsException e) {
        return fail(
            wireserver, "imds", "Failed to fetch instance metadata", e.getMessage(), Exit.IMDS);
      } catch (OvfException e) {
        return fail(
            wireserver, "media", "Failed to read provisioning media", e.getMessage(), Exit.MEDIA);
      } catch (ProvisioningException e) {
        return fail(wireserver, e.step(), e.reason(), e.detail(), Exit.forStep(e.step()));
      } catch (RuntimeException e) {
        // A bug must not leave the platform waiting for a report until it gives up on the VM.
        return fail(
            wireserver,
            "internal",
            "Provisioning failed unexpectedly",
            e.toString(),
            Exit.INTERNAL);
      }
      try {
        state.markProvisioned(vmId);
      } catch (IOException e) {
        // Bookkeeping: the VM is set up, so it is reported Ready all the same. The next boot sets
        // it up again (every step is safe to rerun) and tries the marker again.
        warn(
            "the VM is set up, but its marker could not be written ("
                + IoErrors.reason(e)
                + "): the next boot will set it up again");
      }
    }
    try {
      wireserver.report(Health.ready());
      span.addEvent(BootMilestones.EVENT_PREFIX + "ready");
    } catch (WireserverException e) {
      Map<String, String> supporting = new LinkedHashMap<>();
      supporting.put("step", "report_ready");
      supporting.put("exit_code", String.valueOf(Exit.REPORT.code));
      supporting.put("detail", String.valueOf(e.getMessage()));
      telemetry.report(failure("Failed to report ready", supporting));
      return Exit.REPORT;
    }
    try {
      state.markReportedReady(vmId);
    } catch (IOException e) {
      warn(
          "Ready was reported, but its marker could not be written ("
              + IoErrors.reason(e)
              + "): the next boot will report it again");
    }
    telemetry.report(ProvisioningReport.success(agent, vmId.value(), Instant.now()));
    return Exit.OK;
  }

  /**
   * The boot's milestones so far (systemd's, on the running system) and kvprov's own start, as
   * events of the run's span: the whole boot on one clock.
   */
  private void milestones(Span span) throws InterruptedException {
    List<BootMilestones.Milestone> seen =
        new java.util.ArrayList<>(BootMilestones.ofSystemd(root, runner));
    BootMilestones.processStart().ifPresent(seen::add);
    if (!seen.isEmpty()) {
      try {
        // this process's own clock: /proc/uptime is the same boot whatever --root says
        BootMilestones.record(span, seen, BootClock.read(java.nio.file.Path.of("/")).sinceBoot());
      } catch (IOException e) {
        // no boot clock: the milestones cannot be placed; the run goes on without them
      }
    }
  }

  private void provision(WireserverClient wireserver)
      throws ImdsException, OvfException, ProvisioningException, InterruptedException {
    ImdsInstance instance = new ImdsClient(config.imds(), telemetry.tracer()).fetch();
    OvfEnvironment env = config.mediaEnabled() ? media.read() : null;
    if (config.reportInProgress()) {
      try {
        wireserver.report(Health.inProgress("kvprov is provisioning the VM"));
      } catch (WireserverException e) {
        // Optional: the platform waits for Ready or a failure either way.
        telemetry
            .logger()
            .logRecordBuilder()
            .setSeverity(Severity.WARN)
            .setBody("the in-progress report was not accepted: " + e.getMessage())
            .emit();
      }
    }
    try {
      if (env != null) {
        env.password().ifPresent(this::mask);
        env.customData().ifPresent(this::mask);
      }
      ImdsInstance.OsProfile profile = instance.compute().osProfile();
      String host =
          profile.computerName() != null
              ? profile.computerName()
              : env == null ? null : env.hostName();
      String user =
          profile.adminUsername() != null
              ? profile.adminUsername()
              : env == null ? null : env.userName();
      boolean passwordLogin =
          profile.disablePasswordAuthentication() != null
              ? !profile.disablePasswordAuthentication()
              : env != null && !env.disableSshPasswordAuthentication();
      List<SshKey> keys = new ArrayList<>();
      for (ImdsInstance.PublicKey key : instance.compute().publicKeys()) {
        keys.add(new SshKey(key.keyData(), Optional.ofNullable(key.path())));
      }
      if (keys.isEmpty() && env != null) {
        for (OvfEnvironment.SshKey key : env.sshKeys()) {
          if (key.value() != null) {
            keys.add(new SshKey(key.value(), Optional.ofNullable(key.path())));
          }
        }
      }
      Provisioner.builder(root, runner, telemetry.tracer())
          .hostname(host)
          .user(user)
          .password(env == null ? Optional.empty() : env.password())
          .passwordAuthentication(passwordLogin)
          .sshKeys(keys)
          .groups(config.userGroups())
          .authorizedKeysFile(config.authorizedKeysPath())
          .querySshd(config.querySshdConfig())
          .build()
          .provision();
    } finally {
      if (env != null) {
        env.clearSecrets();
      }
    }
  }

  private void warn(String message) {
    org.slf4j.LoggerFactory.getLogger(ProvisioningRun.class).warn(message); // into telemetry
  }

  /** From the moment a secret is read, every sink masks it. */
  private void mask(Secret secret) {
    char[] chars = secret.copy();
    try {
      telemetry.redactor().register(new String(chars));
    } finally {
      Arrays.fill(chars, '\0');
    }
  }

  private Exit fail(
      WireserverClient wireserver, String step, String reason, String detail, Exit exit)
      throws InterruptedException {
    Map<String, String> supporting = new LinkedHashMap<>();
    supporting.put("step", step);
    supporting.put("exit_code", String.valueOf(exit.code));
    supporting.put("detail", detail);
    ProvisioningReport report = failure(reason, supporting);
    telemetry.report(report);
    try {
      wireserver.report(Health.failed(report.redacted(telemetry.redactor()::redact).encode()));
    } catch (WireserverException e) {
      telemetry
          .logger()
          .logRecordBuilder()
          .setSeverity(Severity.ERROR)
          .setBody("the failure could not be reported to the wireserver: " + e.getMessage())
          .emit();
    }
    return exit;
  }

  private ProvisioningReport failure(String reason, Map<String, String> supporting) {
    return ProvisioningReport.failure(reason, agent, vmId.value(), Instant.now(), supporting);
  }
}
