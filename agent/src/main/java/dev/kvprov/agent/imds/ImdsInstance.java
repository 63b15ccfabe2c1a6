package dev.kvprov.agent.imds;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;
import java.util.Map;

/**
 * What IMDS says about this VM, reduced to what the agent acts on or reports. Unknown fields are
 * ignored; the values are checked by {@link ImdsClient} before it returns.
 *
 * @param compute the {@code compute} section
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ImdsInstance(Compute compute) {

  /** The {@code compute} section. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Compute(
      String vmId,
      String name,
      String location,
      String vmSize,
      OsProfile osProfile,
      List<PublicKey> publicKeys,
      Map<String, Object> extended) {
    public Compute {
      publicKeys = publicKeys == null ? List.of() : List.copyOf(publicKeys);
    }
  }

  /**
   * The admin account and host name.
   *
   * @param disablePasswordAuthentication IMDS sends the string {@code "true"}/{@code "false"} or a
   *     boolean; both are read
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record OsProfile(
      String adminUsername, String computerName, Boolean disablePasswordAuthentication) {}

  /**
   * An SSH public key and where the platform wants it.
   *
   * @param keyData the key line, e.g. {@code ssh-ed25519 AAAA… comment}
   * @param path the authorized_keys file it belongs in
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record PublicKey(String keyData, String path) {
    @Override
    public String toString() {
      // Key material is not secret, but it is long: enough to recognise it.
      String shown =
          keyData == null
              ? "null"
              : keyData.length() > 40 ? keyData.substring(0, 40) + "…" : keyData;
      return "PublicKey[" + shown + " → " + path + "]";
    }
  }
}
