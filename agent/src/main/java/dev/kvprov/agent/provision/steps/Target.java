package dev.kvprov.agent.provision.steps;

import static java.util.Objects.requireNonNull;

import dev.kvprov.agent.ovf.Secret;
import java.util.List;
import java.util.Optional;

/**
 * What the VM is to become: what the platform asked for, with the image's settings for where things
 * go.
 *
 * @param hostname the host name
 * @param user the admin user
 * @param groups supplementary groups for the admin user; those the system lacks are skipped
 * @param password the admin password; without one the account's password is locked
 * @param passwordAuthentication whether sshd accepts passwords
 * @param keys the SSH public keys
 * @param authorizedKeysFile sshd's {@code AuthorizedKeysFile} ({@code %h}, {@code %u} expanded;
 *     relative to the home), the fallback when sshd is not asked
 * @param querySshd whether, on a running system, sshd is asked where it reads keys ({@code sshd
 *     -T})
 * @param authorizedKeysDirectory when not empty, the keys without a path of their own go to the
 *     file {@code kvprov} in this directory (relative to the home), e.g. {@code
 *     .ssh/authorized_keys.d}, as on immutable images
 * @param sshdDropIn the file name of kvprov's drop-in in {@code /etc/ssh/sshd_config.d}
 * @param clientAliveInterval sshd's {@code ClientAliveInterval} in seconds; 0 leaves it alone
 * @param publishHostname whether, on the running system, the DHCP lease is renewed so that Azure's
 *     DNS learns the new host name
 * @param hostnamectl whether the host name is set through hostnamectl where it runs; else only
 *     {@code /etc/hostname} is written
 */
public record Target(
    String hostname,
    String user,
    List<String> groups,
    Optional<Secret> password,
    boolean passwordAuthentication,
    List<SshKey> keys,
    String authorizedKeysFile,
    boolean querySshd,
    String authorizedKeysDirectory,
    String sshdDropIn,
    long clientAliveInterval,
    boolean publishHostname,
    boolean hostnamectl) {
  public Target {
    groups = List.copyOf(groups);
    requireNonNull(password, "password");
    keys = List.copyOf(keys);
    requireNonNull(authorizedKeysFile, "authorizedKeysFile");
    requireNonNull(authorizedKeysDirectory, "authorizedKeysDirectory");
    requireNonNull(sshdDropIn, "sshdDropIn");
  }
}
