package dev.kvprov.agent.provision.steps;

import static java.util.Objects.requireNonNull;

import java.util.Optional;

/**
 * A public key to install, and the authorized_keys file the platform asked for, if any.
 *
 * @param keyData one OpenSSH public key line
 * @param path where the platform wants it; honoured only inside the user's home
 */
public record SshKey(String keyData, Optional<String> path) {
  public SshKey {
    requireNonNull(keyData, "keyData");
    requireNonNull(path, "path");
  }
}
