package dev.kvprov.agent.provision.steps;

import static java.util.Objects.requireNonNull;

import dev.kvprov.agent.os.Names;
import java.util.Optional;

/**
 * A public key to install, and the authorized_keys file the platform asked for, if any.
 *
 * @param keyData one OpenSSH public key line; for an unusable key, what the platform sent
 * @param path where the platform wants it; honoured only inside the user's home
 * @param unusable why what the platform sent could not be made one OpenSSH line (e.g. a certificate
 *     with a key kvprov cannot convert); the SSH keys step fails saying so
 */
public record SshKey(String keyData, Optional<String> path, Optional<String> unusable) {
  public SshKey {
    requireNonNull(keyData, "keyData");
    requireNonNull(path, "path");
    requireNonNull(unusable, "unusable");
  }

  public SshKey(String keyData, Optional<String> path) {
    this(keyData, path, Optional.empty());
  }

  /** A key the platform sent that cannot be installed, and why (never the key itself). */
  public static SshKey unusable(String sent, Optional<String> path, String why) {
    return new SshKey(sent, path, Optional.of(why));
  }

  /** Why this key cannot be installed, without the key material; empty when it can. */
  public Optional<String> problem() {
    return unusable.or(
        () -> Names.sshKeyLineProblem(keyData).map(p -> "not one OpenSSH key line: " + p));
  }
}
