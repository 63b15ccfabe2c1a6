package dev.kvprov.agent.provision;

import dev.kvprov.agent.imds.ImdsInstance;
import dev.kvprov.agent.imds.KeyData;
import dev.kvprov.agent.ovf.OvfEnvironment;
import dev.kvprov.agent.ovf.Secret;
import dev.kvprov.agent.provision.steps.SshKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What the platform says this VM is to be, from IMDS and the provisioning media together: IMDS wins
 * where it answers, the media fills in (as the platform itself treats them). The password is the
 * media's alone; it stays a {@link Secret}.
 *
 * @param vmId the VM's id
 * @param vmName the VM's name in Azure
 * @param location the region
 * @param vmSize the size, e.g. {@code Standard_B2s}
 * @param hostname the host name to set
 * @param adminUser the admin user to create
 * @param passwordLogin whether sshd is to accept passwords
 * @param password the admin password, when the media gave one
 * @param keys the SSH public keys and where they go
 * @param privateIpv4 the first interface's private address
 * @param publicIpv4 the first interface's public address
 */
public record PlatformData(
    String vmId,
    String vmName,
    String location,
    String vmSize,
    String hostname,
    String adminUser,
    boolean passwordLogin,
    Optional<Secret> password,
    List<SshKey> keys,
    Optional<String> privateIpv4,
    Optional<String> publicIpv4) {
  public PlatformData {
    keys = List.copyOf(keys);
  }

  /**
   * The media's {@code env} alone, when IMDS gave no usable answer: the platform's own fallback
   * (the media carry the host name, the user, the password and the keys).
   */
  public static PlatformData fromMedia(OvfEnvironment env) {
    List<SshKey> keys = new ArrayList<>();
    for (OvfEnvironment.SshKey key : env.sshKeys()) {
      if (key.value() != null) {
        keys.add(new SshKey(key.value(), Optional.ofNullable(key.path())));
      }
    }
    return new PlatformData(
        null,
        null,
        null,
        null,
        env.hostName(),
        env.userName(),
        !env.disableSshPasswordAuthentication(),
        env.password(),
        keys,
        Optional.empty(),
        Optional.empty());
  }

  /**
   * The media's keys that name a certificate of the goal state ({@code Fingerprint}, no {@code
   * Value}), when the keys come from the media: IMDS's keys, when it gives any, win over all of
   * them, as over the media's other keys. {@code instance} is null when IMDS did not answer.
   */
  public static List<OvfEnvironment.SshKey> certificateKeys(
      ImdsInstance instance, OvfEnvironment env) {
    if (env == null || instance != null && !instance.compute().publicKeys().isEmpty()) {
      return List.of();
    }
    return env.sshKeys().stream()
        .filter(key -> key.value() == null && key.fingerprint() != null)
        .toList();
  }

  /** IMDS's answer, completed by the media's {@code env} (null when there is none). */
  public static PlatformData of(ImdsInstance instance, OvfEnvironment env) {
    ImdsInstance.Compute compute = instance.compute();
    ImdsInstance.OsProfile profile = compute.osProfile();
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
    for (ImdsInstance.PublicKey key : compute.publicKeys()) {
      keys.add(KeyData.sshKey(key));
    }
    if (keys.isEmpty() && env != null) {
      for (OvfEnvironment.SshKey key : env.sshKeys()) {
        if (key.value() != null) { // a key by fingerprint alone: certificateKeys
          keys.add(new SshKey(key.value(), Optional.ofNullable(key.path())));
        }
      }
    }
    return new PlatformData(
        compute.vmId(),
        compute.name(),
        compute.location(),
        compute.vmSize(),
        host,
        user,
        passwordLogin,
        env == null ? Optional.empty() : env.password(),
        keys,
        instance.privateIpv4(),
        instance.publicIpv4());
  }
}
