package dev.kvprov.agent.provision;

import static java.util.Objects.requireNonNull;

import dev.kvprov.agent.os.CommandRunner;
import dev.kvprov.agent.os.SystemRoot;
import dev.kvprov.agent.ovf.Secret;
import dev.kvprov.agent.provision.steps.ProvisioningException;
import dev.kvprov.agent.provision.steps.SshKey;
import dev.kvprov.agent.provision.steps.Step;
import dev.kvprov.agent.provision.steps.Target;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The OS side of provisioning — host name, admin user, password, sudoers, sshd's password setting,
 * SSH keys — as a small library: build it with what the platform asked for, then {@link
 * #provision()}. Each {@link Step} is a span {@code provision.<step>} with its inputs (never a
 * secret) and outcome; every command goes through the {@link CommandRunner}; a failure names the
 * step, the command, its exit status and stderr. Running it twice changes nothing the second time.
 */
public final class Provisioner {
  private final SystemRoot root;
  private final CommandRunner runner;
  private final Tracer tracer;
  private final Target target;

  private Provisioner(Builder b) {
    this.root = b.root;
    this.runner = b.runner;
    this.tracer = b.tracer;
    this.target =
        new Target(
            b.hostname,
            b.user,
            b.groups,
            b.password,
            b.passwordAuthentication,
            b.keys,
            b.authorizedKeysFile,
            b.querySshd,
            b.authorizedKeysDirectory,
            b.sshdDropIn,
            b.clientAliveInterval,
            b.publishHostname,
            b.hostnamectl);
  }

  /** What to provision: the host name and the admin user are required. */
  public static Builder builder(SystemRoot root, CommandRunner runner, Tracer tracer) {
    return new Builder(root, runner, tracer);
  }

  /** Runs every step, in order, stopping at the first failure. */
  public void provision() throws ProvisioningException, InterruptedException {
    provision(EnumSet.allOf(Step.class));
  }

  /** Runs the {@code selected} steps, in their usual order, stopping at the first failure. */
  public void provision(Set<Step> selected) throws ProvisioningException, InterruptedException {
    for (Step step : Step.values()) {
      if (selected.contains(step)) {
        run(step);
      }
    }
  }

  private void run(Step step) throws ProvisioningException, InterruptedException {
    Span span =
        tracer
            .spanBuilder("provision." + step.id())
            .setAttribute("root", root.path().toString())
            .startSpan();
    try (Scope ignored = span.makeCurrent()) {
      step.run(root, runner, tracer, target, span);
    } catch (ProvisioningException e) {
      span.setStatus(StatusCode.ERROR, e.detail());
      throw e;
    } finally {
      span.end();
    }
  }

  /** What to provision. */
  public static final class Builder {
    private final SystemRoot root;
    private final CommandRunner runner;
    private final Tracer tracer;
    private String hostname;
    private String user;
    private List<String> groups = List.of("adm", "sudo");
    private Optional<Secret> password = Optional.empty();
    private boolean passwordAuthentication;
    private List<SshKey> keys = List.of();
    private String authorizedKeysFile = ".ssh/authorized_keys";
    private boolean querySshd = true;
    private String authorizedKeysDirectory = "";
    private String sshdDropIn = "00-kvprov.conf";
    private long clientAliveInterval;
    private boolean publishHostname = true;
    private boolean hostnamectl = true;

    private Builder(SystemRoot root, CommandRunner runner, Tracer tracer) {
      this.root = requireNonNull(root, "root");
      this.runner = requireNonNull(runner, "runner");
      this.tracer = requireNonNull(tracer, "tracer");
    }

    public Builder hostname(String hostname) {
      this.hostname = hostname;
      return this;
    }

    public Builder user(String user) {
      this.user = user;
      return this;
    }

    /** Supplementary groups for the admin user; those the system lacks are skipped. */
    public Builder groups(List<String> groups) {
      this.groups = List.copyOf(groups);
      return this;
    }

    /** The admin password; without one the account's password is locked. */
    public Builder password(Optional<Secret> password) {
      this.password = requireNonNull(password, "password");
      return this;
    }

    /** Whether sshd accepts passwords. */
    public Builder passwordAuthentication(boolean allowed) {
      this.passwordAuthentication = allowed;
      return this;
    }

    public Builder sshKeys(List<SshKey> keys) {
      this.keys = List.copyOf(keys);
      return this;
    }

    /** sshd's AuthorizedKeysFile ({@code %h}, {@code %u} expanded; relative to the home). */
    public Builder authorizedKeysFile(String pattern) {
      this.authorizedKeysFile = requireNonNull(pattern, "pattern");
      return this;
    }

    /**
     * Whether, on a live system, sshd is asked where it reads keys ({@code sshd -T}), the
     * configured file being the fallback (azure-init's {@code ssh.query_sshd_config}).
     */
    public Builder querySshd(boolean query) {
      this.querySshd = query;
      return this;
    }

    /**
     * A directory of key fragments (relative to the home, e.g. {@code .ssh/authorized_keys.d}): the
     * keys go to its file {@code kvprov}; empty for the one authorized_keys file.
     */
    public Builder authorizedKeysDirectory(String directory) {
      this.authorizedKeysDirectory = requireNonNull(directory, "directory");
      return this;
    }

    /** The file name of kvprov's drop-in in {@code /etc/ssh/sshd_config.d}. */
    public Builder sshdDropIn(String fileName) {
      this.sshdDropIn = requireNonNull(fileName, "fileName");
      return this;
    }

    /** sshd's ClientAliveInterval in seconds; 0 (the default) leaves sshd's setting alone. */
    public Builder clientAliveInterval(long seconds) {
      this.clientAliveInterval = seconds;
      return this;
    }

    /**
     * Whether, on the running system, the DHCP lease is renewed after the host name is set, so that
     * Azure's DNS learns it (on by default).
     */
    public Builder publishHostname(boolean publish) {
      this.publishHostname = publish;
      return this;
    }

    /**
     * Whether the host name is set through hostnamectl where it can be (the default), or only by
     * writing {@code /etc/hostname} (azure-init's {@code hostname_provisioners.backends}).
     */
    public Builder hostnamectl(boolean use) {
      this.hostnamectl = use;
      return this;
    }

    public Provisioner build() {
      return new Provisioner(this);
    }
  }
}
