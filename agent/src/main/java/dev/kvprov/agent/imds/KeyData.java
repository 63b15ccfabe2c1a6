package dev.kvprov.agent.imds;

import dev.kvprov.agent.certs.CertificatesException;
import dev.kvprov.agent.certs.PemCertificate;
import dev.kvprov.agent.provision.steps.SshKey;
import java.util.Optional;

/**
 * {@code compute.publicKeys[].keyData} as IMDS really sends it, made the one OpenSSH line it stands
 * for. A key the portal generated comes with CR LF every 64 characters, often one more at the end:
 * every line break is removed. A key may come as an x509 certificate in PEM: its RSA key becomes an
 * {@code ssh-rsa} line. The line is checked where every key is, by the SSH keys step; a key that
 * cannot be made a line fails that step alone, never the metadata (the VM must still come up, and
 * the report must say which key).
 */
public final class KeyData {
  private static final String PEM_CERTIFICATE = "-----BEGIN CERTIFICATE-----";
  private static final String PEM = "-----BEGIN ";

  private KeyData() {}

  /** {@code key} as a key to install, or as an unusable one that says why. */
  public static SshKey sshKey(ImdsInstance.PublicKey key) {
    Optional<String> path = Optional.ofNullable(key.path());
    String sent = key.keyData();
    if (sent == null) {
      return SshKey.unusable("", path, "keyData is missing");
    }
    String data = sent.strip();
    if (data.startsWith(PEM_CERTIFICATE)) {
      // Only here is Bouncy Castle loaded: the common boot never pays for it.
      try {
        return new SshKey(PemCertificate.openSsh(data), path);
      } catch (CertificatesException e) {
        return SshKey.unusable(sent, path, e.getMessage());
      }
    }
    if (data.startsWith(PEM)) {
      int end = data.indexOf("-----", PEM.length());
      String label = end < 0 ? "" : data.substring(PEM.length(), Math.min(end, PEM.length() + 40));
      return SshKey.unusable(
          sent,
          path,
          "a PEM block of type '"
              + label.replaceAll("\\p{Cntrl}", "?")
              + "', not an OpenSSH key line nor an x509 certificate");
    }
    return new SshKey(data.replace("\r", "").replace("\n", ""), path);
  }
}
