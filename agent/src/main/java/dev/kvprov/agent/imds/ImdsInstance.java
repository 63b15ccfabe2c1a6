package dev.kvprov.agent.imds;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What IMDS says about this VM, reduced to what the agent acts on or reports. Unknown fields are
 * ignored; the values are checked by {@link ImdsClient} before it returns.
 *
 * @param compute the {@code compute} section
 * @param network the {@code network} section; absent in some answers
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ImdsInstance(Compute compute, Network network) {

  /** The first private and public IPv4 address of the first interface, when IMDS names them. */
  public Optional<String> privateIpv4() {
    return firstAddress().map(IpAddress::privateIpAddress).filter(a -> !a.isBlank());
  }

  /** The public IPv4 address (a load balancer's or the VM's own), when there is one. */
  public Optional<String> publicIpv4() {
    return firstAddress().map(IpAddress::publicIpAddress).filter(a -> a != null && !a.isBlank());
  }

  private Optional<IpAddress> firstAddress() {
    if (network == null || network.interfaces().isEmpty()) {
      return Optional.empty();
    }
    Interface first = network.interfaces().get(0);
    if (first == null || first.ipv4() == null || first.ipv4().ipAddress().isEmpty()) {
      return Optional.empty();
    }
    return Optional.ofNullable(first.ipv4().ipAddress().get(0))
        .filter(a -> a.privateIpAddress() != null);
  }

  /** The {@code network} section: the VM's interfaces. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Network(@JsonProperty("interface") List<Interface> interfaces) {
    public Network {
      interfaces =
          interfaces == null ? List.of() : interfaces.stream().filter(i -> i != null).toList();
    }
  }

  /** One network interface. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Interface(Ipv4 ipv4, String macAddress) {}

  /** An interface's IPv4 addresses. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Ipv4(List<IpAddress> ipAddress) {
    public Ipv4 {
      ipAddress =
          ipAddress == null ? List.of() : ipAddress.stream().filter(a -> a != null).toList();
    }
  }

  /** One address pair. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record IpAddress(String privateIpAddress, String publicIpAddress) {}

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
