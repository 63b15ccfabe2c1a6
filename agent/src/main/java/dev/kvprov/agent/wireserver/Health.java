package dev.kvprov.agent.wireserver;

import static java.util.Objects.requireNonNull;

/**
 * A health report for the platform.
 *
 * @param state {@code Ready} or {@code NotReady}
 * @param subStatus with NotReady: {@code Provisioning} (in progress) or {@code ProvisioningFailed}
 * @param description with NotReady: what is happening or what failed (the provisioning report)
 */
public record Health(String state, String subStatus, String description) {
  /** WALinuxAgent's limit on the description; longer ones are cut. */
  static final int MAX_DESCRIPTION = 3686;

  public Health {
    requireNonNull(state, "state");
    if (description != null && description.length() > MAX_DESCRIPTION) {
      description = description.substring(0, MAX_DESCRIPTION);
    }
  }

  public static Health ready() {
    return new Health("Ready", null, null);
  }

  public static Health inProgress(String description) {
    return new Health("NotReady", "Provisioning", requireNonNull(description, "description"));
  }

  public static Health failed(String description) {
    return new Health("NotReady", "ProvisioningFailed", requireNonNull(description, "description"));
  }

  public boolean isReady() {
    return state.equals("Ready");
  }
}
