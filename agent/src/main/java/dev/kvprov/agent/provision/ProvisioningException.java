package dev.kvprov.agent.provision;

import static java.util.Objects.requireNonNull;

/**
 * A provisioning step failed. Its fields feed the {@code PROVISIONING_REPORT}: the step, a stable
 * reason the platform's alerting can key on, and the detail (command, exit status, stderr).
 */
public final class ProvisioningException extends Exception {
  private static final long serialVersionUID = 1L;

  private final String step;
  private final String reason;

  public ProvisioningException(String step, String reason, String detail, Throwable cause) {
    super(requireNonNull(detail, "detail"), cause);
    this.step = requireNonNull(step, "step");
    this.reason = requireNonNull(reason, "reason");
  }

  public ProvisioningException(String step, String reason, String detail) {
    this(step, reason, detail, null);
  }

  /** The step, e.g. {@code user}. */
  public String step() {
    return step;
  }

  /** A stable reason per step, e.g. {@code User creation failed}. */
  public String reason() {
    return reason;
  }

  /** What exactly went wrong. */
  public String detail() {
    return getMessage();
  }
}
