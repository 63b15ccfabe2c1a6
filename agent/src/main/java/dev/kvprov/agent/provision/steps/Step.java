package dev.kvprov.agent.provision.steps;

import dev.kvprov.agent.os.CommandRunner;
import dev.kvprov.agent.os.SystemRoot;
import dev.kvprov.kvp.IoErrors;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The OS steps of provisioning, in the order they run. Each is described here once: its name (the
 * span {@code provision.<name>}, the report's {@code step}, and on the command line with a hyphen),
 * the stable reason the platform's alerting keys on, and the exit code of {@code kvprov provision};
 * what it does is its own class.
 */
public enum Step {
  HOSTNAME("hostname", "Hostname setup failed", 12, HostnameStep::new),
  USER("user", "User creation failed", 13, UserStep::new),
  PASSWORD("password", "Password setup failed", 14, PasswordStep::new),
  SUDOERS("sudoers", "Sudoers setup failed", 15, SudoersStep::new),
  SSHD("sshd", "SSH configuration failed", 16, SshdStep::new),
  SSH_KEYS("ssh_keys", "SSH key setup failed", 17, SshKeysStep::new);

  private final String id;
  private final String reason;
  private final int exitCode;
  private final Factory factory;

  Step(String id, String reason, int exitCode, Factory factory) {
    this.id = id;
    this.reason = reason;
    this.exitCode = exitCode;
    this.factory = factory;
  }

  /** The name in spans and reports, e.g. {@code ssh_keys}. */
  public String id() {
    return id;
  }

  /** The name on the command line, e.g. {@code ssh-keys}. */
  public String option() {
    return id.replace('_', '-');
  }

  /** The reason reported to the platform when this step fails. */
  public String reason() {
    return reason;
  }

  /** The exit code of {@code kvprov provision} when this step fails. */
  public int exitCode() {
    return exitCode;
  }

  /**
   * The steps named in {@code list} ({@code hostname,ssh-keys}; underscores accepted too).
   *
   * @throws IllegalArgumentException naming the unknown step and the known ones
   */
  public static Set<Step> parse(String list) {
    Set<Step> steps = EnumSet.noneOf(Step.class);
    for (String name : list.split(",")) {
      String wanted = name.strip().toLowerCase(Locale.ROOT).replace('_', '-');
      if (wanted.isEmpty()) {
        continue;
      }
      steps.add(
          Arrays.stream(values())
              .filter(s -> s.option().equals(wanted))
              .findFirst()
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "unknown step '" + name.strip() + "'; the steps are " + names())));
    }
    return steps;
  }

  /** Every step's command-line name, in order, comma-separated. */
  public static String names() {
    return Arrays.stream(values()).map(Step::option).collect(Collectors.joining(", "));
  }

  /**
   * Runs this step on {@code root} for {@code target}, recording on {@code span} (and in spans of
   * {@code tracer} below it). A file that cannot be read or written fails the step with the plain
   * reason, like a command that fails.
   */
  public void run(SystemRoot root, CommandRunner runner, Tracer tracer, Target target, Span span)
      throws ProvisioningException, InterruptedException {
    try {
      factory.create(new Machine(root, runner, tracer, this), target).run(span);
    } catch (IOException e) {
      throw new ProvisioningException(this, IoErrors.describe(e), e);
    } catch (UncheckedIOException e) {
      throw new ProvisioningException(this, IoErrors.describe(e.getCause()), e.getCause());
    }
  }

  /** What a step does, given the machine and what was asked for. */
  interface Action {
    void run(Span span) throws ProvisioningException, IOException, InterruptedException;
  }

  private interface Factory {
    Action create(Machine machine, Target target);
  }
}
