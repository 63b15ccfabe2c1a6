package dev.kvprov.agent.imds;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What IMDS says about this VM, reduced to what the agent acts on or reports. Unknown fields are
 * ignored; the values are checked by {@link ImdsClient} before it returns.
 *
 * @param compute the {@code compute} section
 * @param network the {@code network} section as sent; absent in some answers
 * @param extended the {@code extended} section as sent (with {@code extended=true})
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ImdsInstance(Compute compute, JsonNode network, JsonNode extended) {

  /**
   * The pre-provisioning type IMDS names ({@code extended.compute.ppsType}), {@code None} if none.
   */
  public String ppsType() {
    JsonNode type = extended == null ? null : extended.path("compute").path("ppsType");
    return type != null && type.isTextual() && !type.asText().isBlank() ? type.asText() : "None";
  }

  /** The first interface's first private IPv4 address, when IMDS names one. */
  public Optional<String> privateIpv4() {
    return address("privateIpAddress");
  }

  /** The first interface's first public IPv4 address (its own or a load balancer's), if any. */
  public Optional<String> publicIpv4() {
    return address("publicIpAddress");
  }

  /**
   * Read leniently, as a tree: the agent acts on none of it, so a shape it does not expect must not
   * fail IMDS's answer (and with it provisioning).
   */
  private Optional<String> address(String field) {
    if (network == null) {
      return Optional.empty();
    }
    JsonNode value =
        network.path("interface").path(0).path("ipv4").path("ipAddress").path(0).path(field);
    return value.isTextual() && !value.asText().isBlank()
        ? Optional.of(value.asText())
        : Optional.empty();
  }

  /** The {@code compute} section. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Compute(
      String vmId,
      String name,
      String location,
      String vmSize,
      OsProfile osProfile,
      List<PublicKey> publicKeys,
      Map<String, Object> extended,
      String userData) {
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
   * @param keyData the key as sent: a key line, e.g. {@code ssh-ed25519 AAAA… comment}, maybe
   *     wrapped with line breaks, or an x509 certificate in PEM ({@link KeyData} makes it a line)
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
