package dev.kvprov.agent.provision.steps;

import static java.util.Objects.requireNonNull;

/**
 * A provisioning step failed. Its fields feed the {@code PROVISIONING_REPORT}: the step, its stable
 * reason the platform's alerting can key on, and the detail (command, exit status, stderr).
 */
public final class ProvisioningException extends Exception {
  private static final long serialVersionUID = 1L;

  private final Step step;

  public ProvisioningException(Step step, String detail, Throwable cause) {
    super(requireNonNull(detail, "detail"), cause);
    this.step = requireNonNull(step, "step");
  }

  public ProvisioningException(Step step, String detail) {
    this(step, detail, null);
  }

  /** The step that failed. */
  public Step step() {
    return step;
  }

  /** The step's stable reason, e.g. {@code User creation failed}. */
  public String reason() {
    return step.reason();
  }

  /** What exactly went wrong. */
  public String detail() {
    return getMessage();
  }
}
