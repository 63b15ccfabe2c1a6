package dev.kvprov.agent.net;

import static java.util.Objects.requireNonNull;

import dev.kvprov.agent.os.SystemRoot;
import dev.kvprov.otel.KvprovAttributes;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * What the VM's network looked like when provisioning failed, so that the host side sees why it
 * could not reach the platform: links, addresses, the default route, DNS servers, the newest DHCP
 * lease, and whether IMDS and the wireserver answered. Read from files under the root, each capped
 * (see {@link ProcNet}, {@link LeaseFiles}); it holds no secret — MAC and IP addresses are what the
 * platform itself assigned.
 *
 * @param links the links but {@code lo}, at most {@value ProcNet#MAX_LINKS}
 * @param addresses the addresses but loopback's, at most {@value ProcNet#MAX_ADDRESSES}
 * @param defaultRoute {@code via <gateway> dev <link>}, IPv4
 * @param defaultRoute6 {@code via <next hop> dev <link>}, IPv6's {@code ::/0}
 * @param dns the name servers of {@code /etc/resolv.conf}, then systemd-resolved's upstream ones
 * @param lease the newest DHCP lease file's
 * @param imds what the run learned of IMDS: {@code answered}, {@code no answer: …}, {@code not
 *     asked}
 * @param wireserver what the run learned of the wireserver, or a connect's outcome
 */
public record NetworkSnapshot(
    List<Link> links,
    List<Address> addresses,
    Optional<String> defaultRoute,
    Optional<String> defaultRoute6,
    List<String> dns,
    Optional<Lease> lease,
    String imds,
    String wireserver) {

  /** The span's name. */
  public static final String SPAN = "network.snapshot";

  /** At most this many name servers: resolv.conf's three, from each of its two files. */
  static final int MAX_DNS = 6;

  /** Entries of each list the summary names before it says how many more there are. */
  private static final int SUMMARY_ENTRIES = 3;

  /** One network link: {@code eth0 up 00:0d:3a:12:34:56}. */
  public record Link(String name, String state, String mac) {
    @Override
    public String toString() {
      return name + " " + state + " " + mac;
    }
  }

  /** An address with its prefix, and the link that holds it ({@code ?} when not known). */
  public record Address(String link, String address) {
    @Override
    public String toString() {
      return link + " " + address;
    }
  }

  /**
   * @param file where it is, as the VM sees it
   * @param server the DHCP server that gave it
   * @param ageSeconds how long ago it was written
   */
  public record Lease(String file, Optional<String> server, long ageSeconds) {}

  public NetworkSnapshot {
    links = List.copyOf(links);
    addresses = List.copyOf(addresses);
    requireNonNull(defaultRoute, "defaultRoute");
    requireNonNull(defaultRoute6, "defaultRoute6");
    dns = List.copyOf(dns);
    requireNonNull(lease, "lease");
    imds = BoundedText.cap(requireNonNull(imds, "imds"));
    wireserver = BoundedText.cap(requireNonNull(wireserver, "wireserver"));
  }

  /**
   * Reads the network under {@code root}; never fails (what cannot be read is absent).
   *
   * @param imds what the run knows of IMDS
   * @param wireserver what the run knows of the wireserver (see {@link #probe})
   * @param now to date the lease by
   */
  public static NetworkSnapshot read(SystemRoot root, String imds, String wireserver, Instant now) {
    ProcNet net = new ProcNet(root);
    return new NetworkSnapshot(
        net.links(),
        net.addresses(),
        net.defaultRoute(),
        net.defaultRoute6(),
        dns(root),
        LeaseFiles.newest(root, now),
        imds,
        wireserver);
  }

  /**
   * Whether a TCP connection to {@code endpoint} opens within {@code timeout}: the one probe the
   * snapshot makes, when the run has not spoken to the wireserver yet. Nothing is sent.
   *
   * @return {@code connects}, {@code refused}, {@code unreachable}, or {@code no answer within …}
   */
  public static String probe(URI endpoint, Duration timeout) {
    String host = endpoint.getHost();
    if (host == null) {
      return "not probed (no host in " + endpoint + ")";
    }
    int port = endpoint.getPort() > 0 ? endpoint.getPort() : 80;
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(host, port), (int) timeout.toMillis());
      return "connects";
    } catch (SocketTimeoutException e) {
      return "no answer within " + timeout.toMillis() + " ms";
    } catch (NoRouteToHostException e) {
      return "unreachable (no route)";
    } catch (ConnectException e) {
      String m = String.valueOf(e.getMessage());
      return m.contains("refused") ? "refused" : "unreachable (" + m + ")";
    } catch (IOException | SecurityException | IllegalArgumentException e) {
      return "unreachable (" + e.getMessage() + ")";
    }
  }

  private static List<String> dns(SystemRoot root) {
    Set<String> servers = new LinkedHashSet<>();
    for (String file : List.of("/etc/resolv.conf", "/run/systemd/resolve/resolv.conf")) {
      BoundedText.read(root, file)
          .ifPresent(
              text ->
                  text.lines()
                      .map(String::strip)
                      .filter(l -> l.startsWith("nameserver"))
                      .map(l -> l.substring("nameserver".length()).strip())
                      .filter(s -> !s.isEmpty() && !s.contains(" "))
                      .forEach(s -> servers.add(BoundedText.cap(s))));
    }
    return servers.stream().limit(MAX_DNS).toList();
  }

  /**
   * One line for the failure report: {@code links eth0 down 00:0d:3a:…; addresses none; route none;
   * dns 127.0.0.53; lease 168.63.129.16, 3 d old; imds no answer…; wireserver refused}.
   */
  public String summary() {
    return String.join(
        "; ",
        "links " + list(links, Link::toString),
        "addresses " + list(addresses, Address::toString),
        "route " + routes(),
        "dns " + list(dns, Function.identity()),
        "lease "
            + lease
                .map(
                    l ->
                        l.server().orElse("from an unnamed server")
                            + ", "
                            + age(l.ageSeconds())
                            + " old")
                .orElse("none"),
        "imds " + imds,
        "wireserver " + wireserver);
  }

  /**
   * Both default routes, IPv4's as it always was and IPv6's after it marked {@code ::/0}: {@code
   * via 10.0.0.1 dev eth0, ::/0 via fe80::1234:5678:9abc dev eth0}.
   */
  private String routes() {
    List<String> both = new ArrayList<>();
    defaultRoute.ifPresent(both::add);
    defaultRoute6.ifPresent(r -> both.add("::/0 " + r));
    return both.isEmpty() ? "none" : String.join(", ", both);
  }

  /** An age as a reader takes it in at a glance: {@code 42 s}, {@code 5 min}, {@code 3 d}. */
  static String age(long seconds) {
    if (seconds < 120) {
      return seconds + " s";
    }
    if (seconds < 120 * 60) {
      return seconds / 60 + " min";
    }
    if (seconds < 48 * 3600) {
      return seconds / 3600 + " h";
    }
    return seconds / 86400 + " d";
  }

  private static <T> String list(List<T> items, Function<T, String> text) {
    if (items.isEmpty()) {
      return "none";
    }
    List<String> shown = new ArrayList<>();
    for (int i = 0; i < Math.min(SUMMARY_ENTRIES, items.size()); i++) {
      shown.add(text.apply(items.get(i)));
    }
    String more = items.size() > SUMMARY_ENTRIES ? " +" + (items.size() - SUMMARY_ENTRIES) : "";
    return String.join(", ", shown) + more;
  }

  /**
   * Every part as an attribute of {@code span} (the {@value #SPAN} span, started before the
   * snapshot was taken, so that its duration is what taking it cost).
   */
  public void describe(Span span) {
    span.setAttribute(
            AttributeKey.stringArrayKey("net.links"), links.stream().map(Link::toString).toList())
        .setAttribute(
            AttributeKey.stringArrayKey("net.addresses"),
            addresses.stream().map(Address::toString).toList())
        .setAttribute("net.default_route", defaultRoute.orElse("none"))
        .setAttribute("net.default_route6", defaultRoute6.orElse("none"))
        .setAttribute(AttributeKey.stringArrayKey("net.dns"), dns)
        .setAttribute("net.imds", imds)
        .setAttribute("net.wireserver", wireserver)
        .setAttribute(KvprovAttributes.SUMMARY, summary());
    lease.ifPresent(
        l -> {
          span.setAttribute("net.lease.file", l.file());
          l.server().ifPresent(server -> span.setAttribute("net.lease.server", server));
          span.setAttribute("net.lease.age_s", l.ageSeconds());
        });
  }
}
