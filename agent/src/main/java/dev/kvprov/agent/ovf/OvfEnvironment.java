package dev.kvprov.agent.ovf;

import static java.util.Objects.requireNonNull;

import dev.kvprov.otel.Redactor;
import java.util.List;
import java.util.Optional;

/**
 * What the provisioning media's {@code ovf-env.xml} says. The password and custom data are {@link
 * Secret}s: wipe them with {@link #clearSecrets()} once used.
 *
 * @param userName the admin user
 * @param password the admin password, when one was given
 * @param hostName the host name
 * @param disableSshPasswordAuthentication whether sshd must refuse passwords (true when absent)
 * @param customData the base64 custom data as given, when present
 * @param sshKeys the public keys and where they go
 * @param preprovisionedVm whether this is a pre-provisioned (pooled) VM
 * @param preprovisionedVmType the pool type ({@code None}, {@code Running}, {@code Savable})
 * @param provisionGuestProxyAgent whether the platform asks for the Guest Proxy Agent's status to
 *     be checked ({@code PlatformSettings/ProvisionGuestProxyAgent}; false when absent)
 * @param withoutSecrets the document as read, but for the text of {@code UserPassword} and {@code
 *     CustomData}: what may be kept on disk for the guest agent
 */
public record OvfEnvironment(
    String userName,
    Optional<Secret> password,
    String hostName,
    boolean disableSshPasswordAuthentication,
    Optional<Secret> customData,
    List<SshKey> sshKeys,
    boolean preprovisionedVm,
    String preprovisionedVmType,
    boolean provisionGuestProxyAgent,
    String withoutSecrets) {

  /** One {@code SSH/PublicKeys/PublicKey}. */
  public record SshKey(String path, String value, String fingerprint) {}

  public OvfEnvironment {
    requireNonNull(userName, "userName");
    requireNonNull(password, "password");
    requireNonNull(hostName, "hostName");
    requireNonNull(customData, "customData");
    sshKeys = List.copyOf(sshKeys);
    requireNonNull(preprovisionedVmType, "preprovisionedVmType");
    requireNonNull(withoutSecrets, "withoutSecrets");
  }

  /** From now on, every sink of {@code redactor}'s telemetry masks the password and custom data. */
  public void maskIn(Redactor redactor) {
    password.ifPresent(secret -> secret.maskIn(redactor));
    customData.ifPresent(secret -> secret.maskIn(redactor));
  }

  @Override
  public String toString() {
    return "OvfEnvironment[userName="
        + userName
        + ", hostName="
        + hostName
        + ", password="
        + password
        + ", customData="
        + customData
        + ", sshKeys="
        + sshKeys.size()
        + ", preprovisionedVm="
        + preprovisionedVm
        + ", preprovisionedVmType="
        + preprovisionedVmType
        + ", provisionGuestProxyAgent="
        + provisionGuestProxyAgent
        + "]";
  }

  /** Wipes the password and the custom data. */
  public void clearSecrets() {
    password.ifPresent(Secret::clear);
    customData.ifPresent(Secret::clear);
  }
}
