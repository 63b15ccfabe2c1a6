package dev.kvprov.agent.provision;

import static java.util.Objects.requireNonNull;

import dev.kvprov.agent.certs.CertificateKeys;
import dev.kvprov.agent.config.AgentConfig;
import dev.kvprov.agent.imds.ImdsClient;
import dev.kvprov.agent.imds.ImdsException;
import dev.kvprov.agent.imds.ImdsInstance;
import dev.kvprov.agent.os.CommandRunner;
import dev.kvprov.agent.os.SystemRoot;
import dev.kvprov.agent.ovf.OvfEnvironment;
import dev.kvprov.agent.ovf.OvfException;
import dev.kvprov.agent.ovf.OvfParser;
import dev.kvprov.agent.ovf.ProvisioningMedia;
import dev.kvprov.agent.provision.steps.ProvisioningException;
import dev.kvprov.agent.provision.steps.SshKey;
import dev.kvprov.agent.provision.steps.Step;
import dev.kvprov.agent.state.KeptMedia;
import dev.kvprov.agent.state.ProvisioningState;
import dev.kvprov.agent.state.VerdictGenerations;
import dev.kvprov.agent.wireserver.Health;
import dev.kvprov.agent.wireserver.WireserverClient;
import dev.kvprov.agent.wireserver.WireserverException;
import dev.kvprov.kvp.IoErrors;
import dev.kvprov.kvp.VmId;
import dev.kvprov.otel.KvpTelemetry;
import dev.kvprov.otel.KvprovAttributes;
import dev.kvprov.otel.ProvisioningStatus;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.logs.Severity;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One first-boot run, in azure-facts order: markers first; IMDS; the provisioning media; the OS
 * steps; the "provisioned" marker; Ready to the wireserver, and only then the "reported" marker (so
 * a Ready that never arrived is retried next boot); the {@code PROVISIONING_REPORT} last. On a
 * failure: a report with a stable reason per step, NotReady/ProvisioningFailed with the same text,
 * and a non-zero {@link Exit} code. Telemetry failures never fail the run. Chosen {@link Step}s
 * ({@code --only}, {@code --skip}) run even on a VM reported Ready before, which the platform then
 * hears nothing more about.
 *
 * <p>The VM id names the markers: SMBIOS's; without SMBIOS, the one IMDS gave (remembered beside
 * the markers, so that a later boot is done without asking the network); without either, no marker
 * at all, and every boot provisions again. An {@link #offline(boolean) offline} run (an image
 * build) reads the media alone, tells no platform anything, and neither reads nor writes markers.
 */
public final class ProvisioningRun {
  /**
   * Named for the step, not the class: the logger's name is the name of the item a reader sees in
   * the pool ({@code kvp list}) and on stderr, where a Java class name says nothing.
   */
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger("provision");

  /** The exit codes of {@code kvprov provision}. */
  public enum Exit {
    OK(0),
    CONFIG(2),
    IMDS(10),
    MEDIA(11),
    HOSTNAME(Step.HOSTNAME),
    USER(Step.USER),
    PASSWORD(Step.PASSWORD),
    SUDOERS(Step.SUDOERS),
    SSHD(Step.SSHD),
    SSH_KEYS(Step.SSH_KEYS),
    /**
     * A pre-provisioned VM not handed over: a Savable VM had no NIC to watch, could not read its
     * links, or no new NIC came within a configured bound.
     */
    PPS(18),
    /** The platform asked for the Guest Proxy Agent, which did not report ready. */
    GPA(19),
    REPORT(20),
    /** A defect in kvprov itself; still reported like any failure. */
    INTERNAL(30);

    public final int code;

    Exit(int code) {
      this.code = code;
    }

    Exit(Step step) {
      this(step.exitCode());
    }

    /** How {@code kvprov provision} ends when {@code step} fails. */
    static Exit of(Step step) {
      for (Exit exit : values()) {
        if (exit.code == step.exitCode()) {
          return exit;
        }
      }
      throw new IllegalStateException("no exit code for the step " + step.id());
    }
  }

  private final AgentConfig config;
  private final SystemRoot root;
  private final VmId vmId;
  private final ProvisioningMedia media;
  private final CommandRunner runner;
  private final KvpTelemetry telemetry;
  private final VerdictGenerations verdicts;
  private final String agentVersion;
  private Set<Step> steps = EnumSet.allOf(Step.class);
  private Optional<List<String>> groups = Optional.empty();
  private boolean offline;
  private LinkEvents.Source links;

  /** IMDS as this run asks it (none before the first online run asks). */
  private AskedOnce first;

  /** How the Guest Proxy Agent's check went, when the platform asked for one. */
  private Optional<GuestProxyAgent.Status> gpa = Optional.empty();

  /** systemd's milestones, asked for at the run's start and not yet recorded. */
  private BootMilestones.Pending milestones;

  public ProvisioningRun(
      AgentConfig config,
      SystemRoot root,
      VmId vmId,
      ProvisioningMedia media,
      CommandRunner runner,
      KvpTelemetry telemetry,
      VerdictGenerations verdicts,
      String agentVersion) {
    this.verdicts = requireNonNull(verdicts, "verdicts");
    this.config = requireNonNull(config, "config");
    this.root = requireNonNull(root, "root");
    this.vmId = requireNonNull(vmId, "vmId");
    this.media = requireNonNull(media, "media");
    this.runner = requireNonNull(runner, "runner");
    this.telemetry = requireNonNull(telemetry, "telemetry");
    this.agentVersion = agentVersion;
    Path classNet = root.resolve("/sys/class/net");
    // On the VM, the kernel's announcements; under --root (the demo, tests), the files there,
    // which the simulator changes. Neither is loaded unless a Savable VM watches.
    this.links =
        root.isLive()
            ? () -> NetlinkLinks.watchOrPoll(classNet, this::warn)
            : () -> SysfsLinks.watch(classNet);
  }

  /**
   * How far each "still waiting" pushes systemd's start timeout, beyond the longest a step can take
   * (a NIC wait's slice, or an IMDS poll's read timeout and pause).
   */
  private static final Duration WAIT_STEP = Duration.ofMinutes(3);

  /** Where a Savable pre-provisioned VM watches its NICs (netlink on a VM, by default). */
  ProvisioningRun links(LinkEvents.Source source) {
    this.links = requireNonNull(source, "source");
    return this;
  }

  /** Runs only these OS steps ({@code --only}, {@code --skip}); all of them by default. */
  public ProvisioningRun steps(Set<Step> selected) {
    this.steps = EnumSet.noneOf(Step.class);
    this.steps.addAll(selected);
    return this;
  }

  /** The admin user's supplementary groups from the command line ({@code --groups}), if given. */
  public ProvisioningRun groups(Optional<List<String>> groups) {
    this.groups = groups.map(List::copyOf);
    return this;
  }

  /**
   * Touches no platform ({@code provision --offline}, an image build): the media alone; no IMDS, no
   * wireserver (no Ready, no failure, no goal state), no {@code PROVISIONING_REPORT}, no marker
   * read or written, nothing kept from the media. The image's first boot provisions as any first
   * boot does (its steps find their work done) and reports Ready.
   */
  public ProvisioningRun offline(boolean offline) {
    this.offline = offline;
    return this;
  }

  /** Runs, reports, and says how it ended. */
  public Exit run() throws InterruptedException {
    if (!offline
        && !partial()
        && state(config, root).next(vmId) == ProvisioningState.Next.NOTHING) {
      nothingToDo(vmId); // every later boot: one record, nothing else
      return Exit.OK;
    }
    Span span =
        telemetry.tracer().spanBuilder("provision").setAttribute("vm.id", vmId.value()).startSpan();
    if (offline) {
      span.setAttribute("offline", true);
    }
    try (Scope ignored = span.makeCurrent()) {
      // systemd's milestones are asked for beside the steps (two systemctl calls, ~80 ms in a
      // real boot): only the span needs them, by Ready or the run's end
      milestones = BootMilestones.start(root.runsSystemd(), runner);
      ResourceDisks.record(root, telemetry.tracer());
      Exit exit = runInSpan(span);
      if (exit != Exit.OK) {
        span.setStatus(StatusCode.ERROR, "exit " + exit.code + " (" + exit + ")");
      }
      return exit;
    } finally {
      try {
        milestonesRecorded(span);
      } finally {
        span.end();
      }
    }
  }

  /** The boot's milestones as events of the run's span, once: before Ready's, else at the end. */
  private void milestonesRecorded(Span span) throws InterruptedException {
    if (milestones != null) {
      BootMilestones.Pending pending = milestones;
      milestones = null;
      pending.record(span);
    }
  }

  private void nothingToDo(VmId id) {
    telemetry
        .logger()
        .logRecordBuilder()
        .setSeverity(Severity.INFO)
        .setBody(ProvisioningStatus.ALREADY_PROVISIONED + " for VM " + id + ": nothing to do")
        .emit();
  }

  private Exit runInSpan(Span span) throws InterruptedException {
    if (offline) {
      return runOffline(span);
    }
    ProvisioningState state = state(config, root);
    AskedOnce first = new AskedOnce(new ImdsClient(config.imds(), telemetry.tracer()));
    this.first = first;
    VmId id = vmId;
    if (!id.isKnown()) {
      // No SMBIOS (a container, nspawn, an image root): IMDS's id names the markers. Its answer
      // is kept for provisioning, so IMDS is asked once either way.
      id = first.vmId();
      if (!id.isKnown()) {
        warn(
            "this VM has no id: SMBIOS gives none and "
                + id.source()
                + "; no marker is written, so the next boot provisions again and reports Ready"
                + " again");
      } else {
        span.setAttribute("vm.id", id.value());
        span.addEvent("SMBIOS gives no VM id: IMDS's compute.vmId names the markers");
        if (!partial() && state.next(id) == ProvisioningState.Next.NOTHING) {
          nothingToDo(id);
          return Exit.OK;
        }
      }
    }
    boolean learnedFromImds = !vmId.isKnown() && id.isKnown();
    ProvisioningState.Next next = state.next(id);
    span.setAttribute("next", next.name());
    if (next == ProvisioningState.Next.REPORT_READY && state.provisionedByAzureInit(id)) {
      span.setAttribute("azure_init.provisioned", true);
      span.addEvent("azure-init provisioned this VM (its marker is there): only Ready is reported");
    }
    if (partial()) {
      span.setAttribute(
          AttributeKey.stringArrayKey("steps"), steps.stream().map(Step::option).toList());
    }
    PlatformReport platform =
        new PlatformReport(config.wireserver(), telemetry, verdicts, id, agentVersion);
    platform.withNetworkSnapshot(
        root, () -> first == null ? "not asked" : first.outcome(), Optional.empty());
    // Chosen steps run whatever the markers say (a hand-run `--only ssh-keys` on a provisioned
    // VM does its work); but the platform, told Ready before, hears nothing more of them.
    boolean reportedBefore = next == ProvisioningState.Next.NOTHING;
    String source = "imds";
    if (next == ProvisioningState.Next.PROVISION || partial()) {
      try {
        source = provision(platform, !reportedBefore, first);
      } catch (ImdsException e) {
        return fail(
            platform,
            "imds",
            "Failed to fetch instance metadata",
            e.getMessage(),
            Exit.IMDS,
            reportedBefore);
      } catch (OvfException e) {
        return fail(
            platform,
            "media",
            "Failed to read provisioning media",
            e.getMessage(),
            Exit.MEDIA,
            reportedBefore);
      } catch (DataRefused e) {
        return fail(
            platform,
            "check",
            "Provisioning data refused",
            e.getMessage(),
            Exit.MEDIA,
            reportedBefore);
      } catch (ProxyAgentNotReady e) {
        return fail(
            platform,
            "gpa",
            e.status.reason(),
            "the Guest Proxy Agent did not report ready: " + e.status.detail(),
            Exit.GPA,
            reportedBefore,
            Map.of("gpa", e.status.word()));
      } catch (ProvisioningException e) {
        return fail(
            platform, e.step().id(), e.reason(), e.detail(), Exit.of(e.step()), reportedBefore);
      } catch (PoolNotReady e) {
        return Exit.REPORT; // the report in KVP says why: PlatformReport.ready wrote it
      } catch (PreprovisioningException e) {
        return fail(
            platform,
            "pps",
            "Pre-provisioned VM not handed over",
            e.getMessage(),
            Exit.PPS,
            reportedBefore);
      } catch (RuntimeException e) {
        // A bug must not leave the platform waiting for a report until it gives up on the VM.
        return fail(
            platform,
            "internal",
            "Provisioning failed unexpectedly",
            e.toString(),
            Exit.INTERNAL,
            reportedBefore);
      }
      if (reportedBefore) {
        return Exit.OK;
      }
    }
    // Set up (now, before, or by azure-init): kvprov's own "provisioned" marker says so, whoever
    // did it, so that its markers are complete whatever Ready's fate.
    if (id.isKnown() && !state.isMarkedProvisioned(id)) {
      try {
        if (learnedFromImds) {
          state.remember(id); // first: a marker is never found without the id it is named by
        }
        state.markProvisioned(id);
      } catch (IOException e) {
        // Bookkeeping: the VM is set up, so it is reported Ready all the same. The next boot sets
        // it up again (every step is safe to rerun) and tries the marker again.
        warn(
            "the VM is set up, but its marker could not be written ("
                + IoErrors.reason(e)
                + "): the next boot will set it up again");
      }
    }
    if (!platform.ready()) {
      return Exit.REPORT;
    }
    milestonesRecorded(span);
    span.addEvent(BootMilestones.EVENT_PREFIX + "ready");
    if (id.isKnown()) { // without an id the warning above said it: no marker
      try {
        if (learnedFromImds) {
          state.remember(id);
        }
        state.markReportedReady(id);
      } catch (IOException e) {
        warn(
            "Ready was reported, but its marker could not be written ("
                + IoErrors.reason(e)
                + "): the next boot will report it again");
      }
    }
    // Last: whoever waits for the report (kvprov status --wait) finds the markers in place.
    // The platform's support reads where the answer came from when it was not IMDS.
    Map<String, String> supporting = new LinkedHashMap<>();
    if (!source.equals("imds")) {
      supporting.put("source", source);
    }
    gpa.ifPresent(status -> supporting.put("gpa", status.word()));
    platform.succeeded(supporting);
    return Exit.OK;
  }

  /**
   * The offline run: the media, the steps, and one record of how it went. No platform hears of it,
   * and no {@code PROVISIONING_REPORT} is left in the image's pool (the host could read it at the
   * image's first boot, before that boot's own run replaces it).
   */
  private Exit runOffline(Span span) throws InterruptedException {
    span.setAttribute("next", ProvisioningState.Next.PROVISION.name());
    if (partial()) {
      span.setAttribute(
          AttributeKey.stringArrayKey("steps"), steps.stream().map(Step::option).toList());
    }
    PlatformReport platform =
        new PlatformReport(
            config.wireserver(), telemetry, verdicts, vmId, agentVersion); // never asked
    Exit exit;
    String why;
    try {
      provision(platform, false, null);
      telemetry
          .logger()
          .logRecordBuilder()
          .setSeverity(Severity.INFO)
          .setBody(
              "provisioned offline from the media: no platform was told, no marker written; the"
                  + " first boot provisions again and reports Ready")
          .emit();
      return Exit.OK;
    } catch (OvfException e) {
      exit = Exit.MEDIA;
      why = "Failed to read provisioning media: " + e.getMessage();
    } catch (DataRefused e) {
      exit = Exit.MEDIA;
      why = "Provisioning data refused: " + e.getMessage();
    } catch (ProvisioningException e) {
      exit = Exit.of(e.step());
      why = e.reason() + ": " + e.detail();
    } catch (ImdsException | PoolNotReady | PreprovisioningException | ProxyAgentNotReady e) {
      throw new IllegalStateException("an offline run asked the platform", e);
    } catch (RuntimeException e) {
      exit = Exit.INTERNAL;
      why = "Provisioning failed unexpectedly: " + e;
    }
    LOG.error(why); // KVP, stderr: no report
    span.setStatus(StatusCode.ERROR, why);
    return exit;
  }

  /**
   * Provisions; says where the platform's answer came from ({@code imds} or {@code ovf}).
   *
   * @param first IMDS, asked at most once for this answer; unused offline
   */
  private String provision(PlatformReport platform, boolean unreported, AskedOnce first)
      throws ImdsException,
          OvfException,
          DataRefused,
          ProxyAgentNotReady,
          ProvisioningException,
          PreprovisioningException,
          PoolNotReady,
          InterruptedException {
    PlatformAnswer answer;
    if (offline) {
      answer = PlatformAnswer.offline(media);
      if (answer.preprovisioning() != PlatformAnswer.Preprovisioning.NONE) {
        warn("the media say pre-provisioned, which an offline run does not wait for");
      }
    } else {
      try {
        answer =
            PlatformAnswer.read(
                first,
                config.mediaEnabled() ? media : null,
                this::passedOver,
                env -> {
                  if (unreported && env.provisionGuestProxyAgent()) {
                    proxyAgent();
                  }
                });
        if (unreported && !partial()) {
          // Only a first, whole run waits in a pool: chosen steps, or a VM the platform was told
          // Ready for, were handed over long ago.
          answer = handedOver(answer, first.imds, platform);
        } else if (answer.preprovisioning() != PlatformAnswer.Preprovisioning.NONE) {
          warn("the media still say pre-provisioned, but this VM was handed over before");
        }
      } catch (ImdsException e) {
        if (e.valuesRefused()) {
          // IMDS answered: what it asks for cannot be done, like a field of the media.
          throw refused(new DataRefused(e.getMessage()));
        }
        throw e;
      }
    }
    WireserverClient wireserver = platform.wireserver();
    OvfEnvironment env = answer.media();
    try {
      checked(answer);
    } catch (DataRefused e) {
      if (env != null) {
        env.clearSecrets();
      }
      throw e;
    }
    if (!offline && unreported && answer.guestProxyAgent() && gpa.isEmpty()) {
      // A pre-provisioned VM's customer media asked for it, the pool's did not: before anything
      // is told to the platform, the proxy in between must be up all the same.
      try {
        proxyAgent();
      } catch (ProxyAgentNotReady e) {
        if (env != null) {
          env.clearSecrets();
        }
        throw e;
      }
    }
    if (!offline && unreported && config.reportInProgress()) {
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
        env.maskIn(telemetry.redactor());
      }
      answer.userData().ifPresent(telemetry.redactor()::register);
      if (!offline) {
        // An image must not carry the media it was built with (the custom data) into its VMs.
        KeptMedia.keep(
            root.resolve(config.stateDirectory().toString()),
            env,
            answer.userData(),
            telemetry.tracer());
      }
      PlatformData data = answer.data();
      List<SshKey> keys = new java.util.ArrayList<>(data.keys());
      if (offline && !answer.certificateKeys().isEmpty() && steps.contains(Step.SSH_KEYS)) {
        warn(
            answer.certificateKeys().size()
                + " SSH key(s) of the media come as certificates from the wireserver, which an"
                + " offline run does not ask: the first boot adds them");
      } else if (!answer.certificateKeys().isEmpty() && steps.contains(Step.SSH_KEYS)) {
        // Only here is Bouncy Castle loaded: the common boot never pays for it.
        keys.addAll(
            CertificateKeys.resolve(answer.certificateKeys(), wireserver, telemetry.tracer()));
      }
      Provisioner.builder(root, runner, telemetry.tracer())
          .hostname(data.hostname())
          .user(data.adminUser())
          .password(data.password())
          .passwordAuthentication(data.passwordLogin())
          .sshKeys(keys)
          .groups(groups.orElse(config.userGroups()))
          .authorizedKeysFile(config.authorizedKeysPath())
          .querySshd(config.querySshdConfig())
          .authorizedKeysDirectory(config.authorizedKeysDirectory())
          .sshdDropIn(config.sshdDropIn())
          .clientAliveInterval(config.clientAliveInterval())
          .publishHostname(config.publishHostname())
          .hostnamectl(config.hostnameBackends().contains("hostnamectl"))
          .build()
          .provision(withoutSshdUnlessConfigured(steps));
      return answer.source();
    } finally {
      if (env != null) {
        env.clearSecrets();
      }
    }
  }

  /**
   * The answer checked before anything changes the machine: one span, {@code provision.check},
   * failed with the reason when a field is refused.
   */
  private void checked(PlatformAnswer answer) throws DataRefused {
    Span span = telemetry.tracer().spanBuilder("provision.check").startSpan();
    try (Scope ignored = span.makeCurrent()) {
      DataCheck.check(
          answer.data(),
          answer.media() == null ? Optional.empty() : answer.media().customData(),
          root,
          steps);
    } catch (DataRefused e) {
      span.setStatus(StatusCode.ERROR, e.getMessage());
      throw e;
    } finally {
      span.end();
    }
  }

  /**
   * For a pre-provisioned VM, the customer's answer: the pool is told Ready, then the VM waits (one
   * span, {@code pps.wait}) until IMDS hands it the customer's {@code ovf-env.xml}, and IMDS is
   * read again. A Savable VM first waits for its NIC to be swapped ({@link SavableHandover}): the
   * customer's data come on the new one. An ordinary VM's answer as it is.
   */
  private PlatformAnswer handedOver(PlatformAnswer answer, ImdsClient imds, PlatformReport platform)
      throws ImdsException,
          OvfException,
          PreprovisioningException,
          PoolNotReady,
          InterruptedException {
    switch (answer.preprovisioning()) {
      case NONE -> {
        return answer;
      }
      case RUNNING, SAVABLE -> {
        if (answer.media() != null) {
          answer.media().clearSecrets(); // the pool's media: the customer's come later
        }
        boolean savable = answer.preprovisioning() == PlatformAnswer.Preprovisioning.SAVABLE;
        // A pool may wait for hours: systemd's start timeout (kvprov.service's TimeoutStartSec=)
        // is pushed on while it does, a step at a time, so that a hang still ends.
        ServiceManager systemd = ServiceManager.fromEnvironment(this::warn);
        Duration step = WAIT_STEP.plus(config.imds().readTimeout());
        Runnable stillWaiting = () -> systemd.extendStartTimeout(step);
        stillWaiting.run();
        LinkEvents nics = null;
        if (savable) {
          try {
            nics = links.watch(); // before Ready: the NIC may go as soon as the pool hears it
          } catch (IOException e) {
            throw new PreprovisioningException(
                "the NICs in /sys/class/net cannot be watched: " + IoErrors.reason(e));
          }
        }
        try {
          if (!savable && !platform.ready()) {
            throw new PoolNotReady();
          }
          if (savable) {
            // One attempt: the NIC may go, or the VM be saved, before Ready's answer arrives. The
            // platform may well have heard it, and the NIC's swap says so; a retry could only go
            // out after the resume, on the customer's NIC.
            Optional<String> unconfirmed = platform.readyForPool();
            if (unconfirmed.isPresent()) {
              String message =
                  "the pool's Ready was not confirmed ("
                      + unconfirmed.get()
                      + "): waiting for the NIC to be swapped all the same";
              warn(message);
              Span.current().addEvent(message);
            }
            SavableHandover.await(nics, config.preprovisioning(), telemetry.tracer(), stillWaiting);
          }
        } finally {
          if (nics != null) {
            nics.close(); // the netlink socket, however the waits ended
          }
        }
        byte[] document = imds.reprovisionData(stillWaiting);
        // handed over: the customer's boot gets the time a first boot has (IMDS, then Ready)
        systemd.extendStartTimeout(
            config.imds().totalTimeout().plus(config.wireserver().totalTimeout()).plus(WAIT_STEP));
        OvfEnvironment customer;
        try {
          customer = OvfParser.parse(new ByteArrayInputStream(document));
        } finally {
          Arrays.fill(document, (byte) 0); // the customer's password was in there
        }
        return PlatformAnswer.read(imds, () -> customer, this::passedOver);
      }
    }
    throw new IllegalStateException("a pre-provisioning kind with no handling");
  }

  /**
   * IMDS passed over for the media: a warning record, and on the run's span too, so that the tree
   * shows a run that succeeded without IMDS as such.
   */
  private void passedOver(String message) {
    warn(message);
    Span.current().setAttribute(KvprovAttributes.WARNING, message);
  }

  /**
   * azure-init's {@code ssh.configure_sshd_password_authentication = false} leaves sshd's
   * configuration alone: the sshd step (password logins, {@code ClientAliveInterval}) does not run.
   */
  private Set<Step> withoutSshdUnlessConfigured(Set<Step> chosen) {
    if (config.configureSshdPasswordAuthentication()) {
      return chosen;
    }
    Set<Step> left = EnumSet.noneOf(Step.class);
    left.addAll(chosen);
    if (left.remove(Step.SSHD)) {
      Span.current()
          .addEvent(
              "the sshd step does not run: ssh.configure_sshd_password_authentication = false");
    }
    return left;
  }

  private void warn(String message) {
    LOG.warn(message); // into telemetry
  }

  /**
   * Reports the failure: to the platform and KVP, or to KVP alone when the platform was told Ready
   * before (chosen steps rerun on a provisioned VM) — a healthy VM is never reported failed.
   */
  private static Exit fail(
      PlatformReport platform,
      String step,
      String reason,
      String detail,
      Exit exit,
      boolean reportedBefore)
      throws InterruptedException {
    return fail(platform, step, reason, detail, exit, reportedBefore, Map.of());
  }

  /** As above, with fields of the step's own (e.g. {@code gpa}) after the detail. */
  private static Exit fail(
      PlatformReport platform,
      String step,
      String reason,
      String detail,
      Exit exit,
      boolean reportedBefore,
      Map<String, String> own)
      throws InterruptedException {
    Map<String, String> supporting = new LinkedHashMap<>();
    supporting.put("step", step);
    supporting.put("exit_code", String.valueOf(exit.code));
    supporting.put("detail", detail);
    supporting.putAll(own);
    platform.failed(reason, supporting, reportedBefore);
    return exit;
  }

  /** kvprov's markers, and azure-init's: a VM it provisioned is not provisioned again. */
  static ProvisioningState state(AgentConfig config, SystemRoot root) {
    return new ProvisioningState(
        root.resolve(config.stateDirectory().toString()),
        root.resolve(config.azureInitDataDirectory().toString()));
  }

  /**
   * IMDS asked once: the VM id (when SMBIOS has none) and provisioning read the same answer, or the
   * same failure. A pre-provisioned VM's second reading, after the hand-over, asks anew.
   */
  private static final class AskedOnce implements PlatformAnswer.Instances {
    final ImdsClient imds;
    private ImdsInstance instance;
    private ImdsException failure;

    AskedOnce(ImdsClient imds) {
      this.imds = imds;
    }

    @Override
    public ImdsInstance fetch() throws ImdsException, InterruptedException {
      if (instance == null && failure == null) {
        try {
          instance = imds.fetch();
        } catch (ImdsException e) {
          failure = e;
        }
      }
      if (failure != null) {
        throw failure;
      }
      return instance;
    }

    /** What this run learned of IMDS, for the network snapshot. */
    String outcome() {
      if (instance != null) {
        return "answered";
      }
      if (failure != null) {
        return (failure.refused() ? "refused (" : "no answer (") + lastCause(failure) + ")";
      }
      return "not asked";
    }

    /** IMDS's {@code compute.vmId}, checked; unknown, saying why, when there is none to use. */
    VmId vmId() throws InterruptedException {
      try {
        return VmId.parse(fetch().compute().vmId(), "IMDS's compute.vmId");
      } catch (ImdsException e) {
        return new VmId(VmId.UNKNOWN, "IMDS gave no answer (" + e.getMessage() + ")");
      }
    }
  }

  /**
   * The last attempt's failure, which the clients' messages end with ({@code …; last: connect
   * failed: Connection refused}): what the snapshot's one line has room for.
   */
  static String lastCause(Exception e) {
    String message = String.valueOf(e.getMessage());
    int last = message.lastIndexOf("last: ");
    return last < 0 ? message : message.substring(last + "last: ".length());
  }

  /**
   * The Guest Proxy Agent's status, asked when the media ask for it, before IMDS: cloud-init asks
   * it once networking is up and before IMDS, the proxy sitting between the VM and IMDS and the
   * wireserver.
   */
  private void proxyAgent() throws ProxyAgentNotReady, InterruptedException {
    GuestProxyAgent.Status status =
        GuestProxyAgent.check(root, runner, telemetry.tracer(), GuestProxyAgent.WAIT);
    gpa = Optional.of(status);
    if (!status.ready()) {
      throw new ProxyAgentNotReady(status);
    }
  }

  /** A refusal found while reading the answer (IMDS's values), in its own failed check span. */
  private DataRefused refused(DataRefused refusal) {
    Span span = telemetry.tracer().spanBuilder("provision.check").startSpan();
    span.setStatus(StatusCode.ERROR, refusal.getMessage());
    span.end();
    return refusal;
  }

  /** The platform asked for the Guest Proxy Agent, and it did not report ready. */
  private static final class ProxyAgentNotReady extends Exception {
    private static final long serialVersionUID = 1L;
    final transient GuestProxyAgent.Status status;

    ProxyAgentNotReady(GuestProxyAgent.Status status) {
      super(status.detail());
      this.status = status;
    }
  }

  /** The pool was not told Ready: like any Ready that did not arrive, exit 20. */
  private static final class PoolNotReady extends Exception {
    private static final long serialVersionUID = 1L;
  }

  private boolean partial() {
    return steps.size() < Step.values().length;
  }
}
