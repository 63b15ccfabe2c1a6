package dev.kvprov.agent.certs;

import static java.util.Objects.requireNonNull;

import dev.kvprov.agent.ovf.OvfEnvironment;
import dev.kvprov.agent.provision.steps.ProvisioningException;
import dev.kvprov.agent.provision.steps.SshKey;
import dev.kvprov.agent.provision.steps.Step;
import dev.kvprov.agent.wireserver.WireserverClient;
import dev.kvprov.agent.wireserver.WireserverException;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The SSH keys ovf-env.xml names by {@code Fingerprint} alone: their certificates come from the
 * wireserver's goal state, encrypted to a transport key made for this request, in a PKCS#12 inside
 * a CMS envelope.
 *
 * <p>This is the only way into Bouncy Castle: call it only when such a key exists, and the common
 * boot never loads a class of it (JVM start is kvprov's biggest cost).
 *
 * <p>Every failure is the SSH keys step's, naming the fingerprint: to the platform's alerting, a
 * key that could not be installed is a failed key setup, whichever of the wireserver, the envelope
 * or the match let it down; the detail says which.
 */
public final class CertificateKeys {
  /**
   * The content cipher asked for: the one WALinuxAgent and cloud-init ask for, which every
   * wireserver serves (Bouncy Castle would decrypt AES128_CBC as well).
   */
  static final String CIPHER = "DES_EDE3_CBC";

  private CertificateKeys() {}

  /**
   * The OpenSSH lines of {@code keys} (each with a fingerprint and no value), in their order, each
   * with its {@code Path}. One span {@code wireserver.certificates}: the certificates' count and
   * the fingerprints matched, never key material.
   *
   * @throws ProvisioningException for {@link Step#SSH_KEYS}, naming the fingerprint(s) concerned
   */
  public static List<SshKey> resolve(
      List<OvfEnvironment.SshKey> keys, WireserverClient wireserver, Tracer tracer)
      throws ProvisioningException, InterruptedException {
    requireNonNull(wireserver, "wireserver");
    List<String> wanted =
        keys.stream().map(key -> normalized(key.fingerprint())).distinct().toList();
    Span span =
        tracer
            .spanBuilder("wireserver.certificates")
            .setAttribute(AttributeKey.stringArrayKey("certificates.wanted"), wanted)
            .startSpan();
    try (Scope ignored = span.makeCurrent()) {
      List<Certificate> certificates = fetch(wireserver, wanted);
      span.setAttribute("certificates.count", (long) certificates.size());
      List<SshKey> found = new ArrayList<>();
      List<String> matched = new ArrayList<>();
      for (OvfEnvironment.SshKey key : keys) {
        String fingerprint = normalized(key.fingerprint());
        found.add(new SshKey(openSsh(fingerprint, certificates), Optional.ofNullable(key.path())));
        if (!matched.contains(fingerprint)) {
          matched.add(fingerprint);
          span.setAttribute(AttributeKey.stringArrayKey("certificates.matched"), matched);
        }
      }
      return found;
    } catch (ProvisioningException e) {
      span.setStatus(StatusCode.ERROR, e.detail());
      throw e;
    } finally {
      span.end();
    }
  }

  private static List<Certificate> fetch(WireserverClient wireserver, List<String> fingerprints)
      throws ProvisioningException, InterruptedException {
    try {
      TransportKey transport = TransportKey.create();
      byte[] document = wireserver.certificates(transport.certificateHeader(), CIPHER);
      return PfxCertificates.read(transport.decrypt(CertificatesDocument.envelopedData(document)));
    } catch (WireserverException | CertificatesException e) {
      throw new ProvisioningException(
          Step.SSH_KEYS,
          "cannot fetch the certificate of the key"
              + (fingerprints.size() == 1 ? " with fingerprint " : "s with fingerprints ")
              + String.join(", ", fingerprints)
              + " from the goal state: "
              + e.getMessage(),
          e);
    }
  }

  private static String openSsh(String fingerprint, List<Certificate> certificates)
      throws ProvisioningException {
    for (Certificate certificate : certificates) {
      if (certificate.thumbprint().equals(fingerprint)) {
        try {
          return certificate
              .openSsh()
              .orElseThrow(
                  () ->
                      new CertificatesException(
                          "the certificate with fingerprint "
                              + fingerprint
                              + " holds no RSA key, the only kind a certificate delivers"));
        } catch (CertificatesException e) {
          throw new ProvisioningException(Step.SSH_KEYS, e.getMessage(), e);
        }
      }
    }
    throw new ProvisioningException(
        Step.SSH_KEYS,
        "the key with fingerprint "
            + fingerprint
            + " is in none of the goal state's "
            + certificates.size()
            + " certificate(s)");
  }

  /** Upper-case hex without separators, as thumbprints are compared. */
  static String normalized(String fingerprint) {
    return requireNonNull(fingerprint, "fingerprint")
        .strip()
        .replace(":", "")
        .replace(" ", "")
        .toUpperCase(Locale.ROOT);
  }
}
