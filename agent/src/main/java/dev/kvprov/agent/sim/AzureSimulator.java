package dev.kvprov.agent.sim;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A small Azure on loopback: IMDS ({@code /metadata/instance}) and the wireserver (versions, goal
 * state, the goal state's certificates, XML health, JSON health) on two ports, with {@link
 * Scenario}s for the failures an agent must survive. It records every health report it receives.
 * For tests, the demo and developers; the agent's own HTTP code is always exercised for real
 * against it.
 */
public final class AzureSimulator implements AutoCloseable {
  /** One health report as the wireserver received it. */
  public record Report(String protocol, String body) {}

  private final Scenario scenario;
  private final int failures;
  private final long imdsDelayMillis;
  private final String retryAfter;
  private final String instanceJson;
  private final String goalState;
  private final String versions;
  private final HttpServer imds;
  private final HttpServer wireserver;
  private final int imdsPort;
  private final int wireserverPort;
  private final ExecutorService executor =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "azure-simulator");
            t.setDaemon(true);
            return t;
          });
  private final AtomicInteger imdsRequests = new AtomicInteger();
  private final AtomicInteger requests = new AtomicInteger();
  private final AtomicInteger healthRequests = new AtomicInteger();
  private final AtomicInteger reprovisionRequests = new AtomicInteger();
  private final java.util.concurrent.atomic.AtomicBoolean handedOver =
      new java.util.concurrent.atomic.AtomicBoolean();
  private final java.util.concurrent.atomic.AtomicBoolean nicSwapped =
      new java.util.concurrent.atomic.AtomicBoolean();
  private final java.util.concurrent.atomic.AtomicBoolean poolReady =
      new java.util.concurrent.atomic.AtomicBoolean();
  private final Path classNet;
  private final List<Report> reports = new ArrayList<>();
  private final Consumer<String> log;
  private final boolean jsonHealth;
  private final boolean poolReadyLost;
  private SimulatedCertificates certificates; // made on first use: an RSA key takes a while

  private AzureSimulator(Builder b) throws IOException {
    this.jsonHealth = b.jsonHealth;
    this.poolReadyLost = b.poolReadyLost;
    this.scenario = b.scenario;
    this.failures = b.failures;
    this.imdsDelayMillis = b.imdsDelayMillis;
    this.retryAfter = b.retryAfter;
    this.instanceJson =
        b.instanceJson != null
            ? b.instanceJson
            : switch (scenario) {
              case CERTIFICATE_KEY -> withoutPublicKeys(resource("instance.json"));
              case PORTAL_KEYS -> withPortalKeys(resource("instance.json"), certificates());
              default -> resource("instance.json");
            };
    this.goalState = resource("goalstate.xml");
    this.versions = resource("versions.xml");
    this.log = b.log;
    this.classNet = b.classNet;
    InetSocketAddress loopback = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    imds = HttpServer.create(loopback, 0);
    wireserver = HttpServer.create(loopback, 0);
    imds.setExecutor(executor);
    wireserver.setExecutor(executor);
    imds.createContext(
        "/",
        exchange -> {
          requests.incrementAndGet();
          send(exchange, 404, "text/plain", "Not Found");
        });
    imds.createContext("/metadata/instance", this::instance);
    imds.createContext("/metadata/reprovisiondata", this::reprovisionData);
    wireserver.createContext("/", this::wireserverRequest);
    imdsPort = imds.getAddress().getPort();
    wireserverPort = wireserver.getAddress().getPort();
    imds.start();
    wireserver.start();
    if (scenario == Scenario.NETWORK_DOWN) {
      // Nothing listens on the ports any more: every connection is refused, as on a VM whose
      // link is down; the ports stay the endpoints so that the agent has somewhere to try.
      // (Stopped after a start: only the server's own thread lets go of a listening socket.)
      imds.stop(0);
      wireserver.stop(0);
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  private static String resource(String name) {
    try (InputStream in = AzureSimulator.class.getResourceAsStream(name)) {
      return new String(in.readAllBytes(), UTF_8);
    } catch (IOException | NullPointerException e) {
      throw new IllegalStateException("simulator resource missing: " + name, e);
    }
  }

  /** IMDS's instance without keys: the media's, certificates among them, are used instead. */
  private static String withoutPublicKeys(String json) {
    try {
      ObjectMapper mapper = new ObjectMapper();
      ObjectNode root = (ObjectNode) mapper.readTree(json);
      ((ObjectNode) root.get("compute")).putArray("publicKeys");
      return mapper.writerWithDefaultPrettyPrinter().writeValueAsString(root);
    } catch (IOException e) {
      throw new UncheckedIOException("the sample instance is not JSON", e);
    }
  }

  /**
   * IMDS's instance with its keys as the portal sends them: the sample's RSA key (the second)
   * wrapped with CR LF every 64 characters and one at the end, then the goal state's certificate in
   * PEM, its lines ended by CR LF.
   */
  private static String withPortalKeys(String json, SimulatedCertificates certificates) {
    try {
      ObjectMapper mapper = new ObjectMapper();
      ObjectNode root = (ObjectNode) mapper.readTree(json);
      ObjectNode compute = (ObjectNode) root.get("compute");
      JsonNode rsa = compute.get("publicKeys").get(1);
      String line = rsa.get("keyData").asText();
      StringBuilder wrapped = new StringBuilder();
      for (int i = 0; i < line.length(); i += 64) {
        wrapped.append(line, i, Math.min(line.length(), i + 64)).append("\r\n");
      }
      String pem =
          "-----BEGIN CERTIFICATE-----\r\n"
              + java.util.Base64.getMimeEncoder(64, "\r\n".getBytes(UTF_8))
                  .encodeToString(certificates.certificate())
              + "\r\n-----END CERTIFICATE-----\r\n";
      ArrayNode keys = compute.putArray("publicKeys");
      keys.addObject().put("keyData", wrapped.toString()).put("path", rsa.get("path").asText());
      keys.addObject().put("keyData", pem).put("path", rsa.get("path").asText());
      return mapper.writerWithDefaultPrettyPrinter().writeValueAsString(root);
    } catch (IOException e) {
      throw new UncheckedIOException("the sample instance is not JSON", e);
    }
  }

  private synchronized SimulatedCertificates certificates() {
    if (certificates == null) {
      certificates = new SimulatedCertificates();
    }
    return certificates;
  }

  /**
   * The SHA-1 thumbprint (upper-case hex) of the certificate the goal state delivers: the {@code
   * Fingerprint} of a media key that has no {@code Value}.
   */
  public String certificateThumbprint() {
    return certificates().thumbprint();
  }

  /**
   * {@code ovfEnv} with one more {@code PublicKey}: {@code fingerprint} and a path, no value, as
   * Azure writes a key that comes as a certificate.
   */
  public static String withCertificateKey(String ovfEnv, String fingerprint) {
    return ovfEnv.replace(
        "</PublicKeys>",
        "  <PublicKey>\n            <Fingerprint>"
            + fingerprint
            + "</Fingerprint>\n            <Path>/home/azureuser/.ssh/authorized_keys</Path>\n"
            + "          </PublicKey>\n        </PublicKeys>");
  }

  /** That certificate's DER: its RSA key is the one such a media key stands for. */
  public byte[] certificate() {
    return certificates().certificate();
  }

  /** Base URL of the simulated IMDS, e.g. {@code http://127.0.0.1:40123}. */
  public URI imdsEndpoint() {
    return URI.create("http://127.0.0.1:" + imdsPort);
  }

  /** Base URL of the simulated wireserver. */
  public URI wireserverEndpoint() {
    return URI.create("http://127.0.0.1:" + wireserverPort);
  }

  public Scenario scenario() {
    return scenario;
  }

  /** How many requests of any kind, to IMDS or the wireserver, arrived so far. */
  public int requests() {
    return requests.get();
  }

  /** How many IMDS requests arrived so far. */
  public int imdsRequests() {
    return imdsRequests.get();
  }

  /** How many health reports arrived, accepted or not. */
  public int healthRequests() {
    return healthRequests.get();
  }

  /** The health reports received so far, in order. */
  public synchronized List<Report> reports() {
    return List.copyOf(reports);
  }

  /** A TOML snippet that points the agent at this simulator. */
  public String configSnippet() {
    return "[imds]\nendpoint = \""
        + imdsEndpoint()
        + "\"\n\n[wireserver]\nendpoint = \""
        + wireserverEndpoint()
        + "\"\n";
  }

  private void instance(HttpExchange exchange) throws IOException {
    requests.incrementAndGet();
    int n = imdsRequests.incrementAndGet();
    if (!"true".equals(exchange.getRequestHeaders().getFirst("Metadata"))) {
      send(exchange, 400, "text/plain", "Required metadata header not specified");
      return;
    }
    String query = exchange.getRequestURI().getQuery();
    if (query == null || !query.contains("api-version=")) {
      send(exchange, 400, "text/plain", "Bad request: api-version missing");
      return;
    }
    switch (scenario) {
      case SLOW_IMDS -> sleep(imdsDelayMillis);
      case IMDS_DOWN, IMDS_DOWN_NO_MEDIA -> {
        send(exchange, 503, "text/plain", "Service Unavailable");
        return;
      }
      case FLAKY_IMDS -> {
        if (n <= failures) {
          int[] codes = {500, 503, 429};
          send(exchange, codes[(n - 1) % codes.length], "text/plain", "flaky");
          return;
        }
      }
      case IMDS_MALFORMED -> {
        if (n <= failures) {
          send(exchange, 200, "application/json", "{\"compute\": {\"osProfile\": ");
          return;
        }
      }
      case RETRY_AFTER -> {
        if (n <= failures) {
          exchange.getResponseHeaders().add("Retry-After", retryAfter);
          send(exchange, 429, "text/plain", "Too Many Requests");
          return;
        }
      }
      case IMDS_STALLS -> {
        if (n <= failures) {
          stall(exchange, 200, instanceJson);
          return;
        }
      }
      case IMDS_TRICKLES -> {
        if (n <= failures) {
          trickle(exchange, instanceJson);
          return;
        }
      }
      default -> {}
    }
    send(exchange, 200, "application/json; charset=utf-8", pooled(instanceJson));
  }

  /** The instance as a pooled VM sees it before its customer has it. */
  private String pooled(String json) {
    String type =
        switch (scenario) {
          case PPS_RUNNING -> handedOver.get() ? "None" : "Running";
          case PPS_SAVABLE -> handedOver.get() ? "None" : "Savable";
          default -> "None";
        };
    return json.replace("\"ppsType\": \"None\"", "\"ppsType\": \"" + type + "\"");
  }

  /**
   * IMDS's reprovisioning data: 404 until the pooled VM is handed over (after {@code failures}
   * polls in {@link Scenario#PPS_RUNNING}; once its NIC was swapped in {@link
   * Scenario#PPS_SAVABLE}), then the customer's ovf-env.xml; 404 for every other VM, which is never
   * handed over.
   */
  private void reprovisionData(HttpExchange exchange) throws IOException {
    requests.incrementAndGet();
    int n = reprovisionRequests.incrementAndGet();
    if (!"true".equals(exchange.getRequestHeaders().getFirst("Metadata"))) {
      send(exchange, 400, "text/plain", "Required metadata header not specified");
      return;
    }
    boolean handOver =
        switch (scenario) {
          case PPS_RUNNING -> n > failures;
          case PPS_SAVABLE -> nicSwapped.get();
          default -> false;
        };
    if (!handOver) {
      send(exchange, 404, "text/plain", "Not Found");
      return;
    }
    handedOver.set(true);
    log.accept("reprovisioning data handed over (poll " + n + ")");
    send(exchange, 200, "application/xml; charset=utf-8", resource("customer-ovf-env.xml"));
  }

  /**
   * Sends the headers and the first bytes of {@code body}, then nothing until the simulator is
   * closed: a server that hangs mid-answer.
   */
  private static void stall(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(UTF_8);
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes, 0, Math.min(16, bytes.length));
    exchange.getResponseBody().flush();
    sleep(Long.MAX_VALUE);
    exchange.close();
  }

  /** Sends {@code body} a byte every 100 ms (until the simulator is closed). */
  private static void trickle(HttpExchange exchange, String body) throws IOException {
    byte[] bytes = body.getBytes(UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
    exchange.sendResponseHeaders(200, bytes.length);
    try {
      for (int i = 0; i < bytes.length && !Thread.currentThread().isInterrupted(); i++) {
        exchange.getResponseBody().write(bytes[i]);
        exchange.getResponseBody().flush();
        sleep(100);
      }
    } catch (IOException clientGone) {
      // the client gave up on the answer, as it should
    }
    exchange.close();
  }

  private void wireserverRequest(HttpExchange exchange) throws IOException {
    requests.incrementAndGet();
    String path = exchange.getRequestURI().getPath();
    String query =
        exchange.getRequestURI().getQuery() == null ? "" : exchange.getRequestURI().getQuery();
    String method = exchange.getRequestMethod();
    if (method.equals("GET") && path.equals("/") && query.equals("comp=versions")) {
      send(exchange, 200, "text/xml; charset=utf-8", versions);
    } else if (method.equals("GET") && path.equals("/machine/") && query.equals("comp=goalstate")) {
      if (!"2012-11-30".equals(exchange.getRequestHeaders().getFirst("x-ms-version"))) {
        send(exchange, 400, "text/plain", "x-ms-version missing");
        return;
      }
      send(exchange, 200, "text/xml; charset=utf-8", goalState);
    } else if (method.equals("GET")
        && path.startsWith("/machine/")
        && query.startsWith("comp=certificates")) {
      certificates(exchange);
    } else if (method.equals("POST") && path.equals("/machine") && query.equals("comp=health")) {
      health(exchange, "xml");
    } else if (method.equals("POST") && path.equals("/provisioning/health") && jsonHealth) {
      health(exchange, "json");
    } else {
      send(exchange, 404, "text/plain", "Not Found");
    }
  }

  /** The goal state's certificates, enveloped to the transport certificate in the headers. */
  private void certificates(HttpExchange exchange) throws IOException {
    com.sun.net.httpserver.Headers headers = exchange.getRequestHeaders();
    String transport = headers.getFirst("x-ms-guest-agent-public-x509-cert");
    String cipher = headers.getFirst("x-ms-cipher-name");
    if (!"2012-11-30".equals(headers.getFirst("x-ms-version"))
        || transport == null
        || cipher == null) {
      send(
          exchange, 400, "text/plain", "x-ms-version, x-ms-cipher-name or the certificate missing");
      return;
    }
    String document;
    try {
      document = certificates().document(transport, cipher);
    } catch (IllegalArgumentException e) {
      send(exchange, 400, "text/plain", e.getMessage());
      return;
    }
    log.accept("certificates sent (" + cipher + ")");
    send(exchange, 200, "text/xml; charset=utf-8", document);
  }

  private void health(HttpExchange exchange, String protocol) throws IOException {
    String body = new String(exchange.getRequestBody().readNBytes(1 << 20), UTF_8);
    int n = healthRequests.incrementAndGet();
    if (scenario == Scenario.WIRESERVER_DOWN
        || (scenario == Scenario.WIRESERVER_FLAKY && n <= failures)) {
      send(exchange, 503, "text/plain", "Service Unavailable");
      return;
    }
    if (scenario == Scenario.WIRESERVER_FORBIDS) {
      send(exchange, 403, "text/plain", "Forbidden");
      return;
    }
    if (scenario == Scenario.WIRESERVER_STALLS && n <= failures) {
      stall(exchange, 200, "accepted, but never finished saying so");
      return;
    }
    synchronized (this) {
      reports.add(new Report(protocol, body));
    }
    log.accept("health report (" + protocol + "): " + body);
    if (scenario == Scenario.PPS_SAVABLE && poolReady.compareAndSet(false, true)) {
      executor.execute(this::swapNic);
      if (poolReadyLost) {
        // heard, but the NIC goes before the answer does: the agent hears nothing
        log.accept("the pool's Ready heard; its answer lost with the NIC");
        sleep(Long.MAX_VALUE);
        exchange.close();
        return;
      }
    }
    send(exchange, 200, "text/plain", "");
  }

  /**
   * What the platform does to a Savable VM once the pool heard Ready: takes its NIC away, saves it,
   * and resumes it for a customer with a new NIC (same name, new index), in the guest's {@code
   * /sys/class/net} when the simulator was given one. Only then is the customer's data served.
   */
  private void swapNic() {
    try {
      if (classNet != null) {
        sleep(200);
        long index = 1;
        try (java.util.stream.Stream<Path> nics = Files.list(classNet)) {
          for (Path nic : nics.filter(p -> Files.exists(p.resolve("device"))).toList()) {
            index =
                Math.max(index, Long.parseLong(Files.readString(nic.resolve("ifindex")).trim()));
            SimulatedNics.unplug(classNet, nic.getFileName().toString());
            log.accept("NIC " + nic.getFileName() + " detached from the pooled VM");
          }
        }
        sleep(300);
        SimulatedNics.plug(classNet, "eth0", index + 1);
        log.accept("NIC eth0 (index " + (index + 1) + ") attached for the customer");
      }
      nicSwapped.set(true);
    } catch (IOException e) {
      log.accept("the NIC could not be swapped: " + e.getMessage());
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void send(HttpExchange exchange, int status, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    if (bytes.length > 0) {
      exchange.getResponseBody().write(bytes);
    }
    exchange.close();
  }

  @Override
  public void close() {
    imds.stop(0);
    wireserver.stop(0);
    executor.shutdownNow();
  }

  /** Settings for a simulator. Defaults: scenario {@code ok}, the built-in sample instance. */
  public static final class Builder {
    private Scenario scenario = Scenario.OK;
    private int failures = -1;
    private long imdsDelayMillis = 3000;
    private String retryAfter = "1";
    private String instanceJson;
    private Consumer<String> log = line -> {};
    private boolean jsonHealth = true;
    private Path classNet;
    private boolean poolReadyLost;

    private Builder() {}

    /**
     * In {@link Scenario#PPS_SAVABLE}, the pool's Ready is heard and the NIC swapped, but no answer
     * comes back on that request (the NIC went first); later requests are answered.
     */
    public Builder poolReadyLost() {
      this.poolReadyLost = true;
      return this;
    }

    /**
     * The guest's {@code /sys/class/net} (made with {@link SimulatedNics}), whose NIC the platform
     * swaps for a Savable pooled VM ({@link Scenario#PPS_SAVABLE}); without it, the customer's data
     * are served as soon as the pool heard Ready.
     */
    public Builder nics(Path classNet) {
      this.classNet = requireNonNull(classNet, "classNet");
      return this;
    }

    /** Whether the JSON health endpoint exists (older wireservers answer 404 there). */
    public Builder jsonHealth(boolean jsonHealth) {
      this.jsonHealth = jsonHealth;
      return this;
    }

    public Builder scenario(Scenario scenario) {
      this.scenario = requireNonNull(scenario, "scenario");
      return this;
    }

    /** How many failures the flaky scenarios serve before they answer. */
    public Builder failures(int failures) {
      this.failures = failures;
      return this;
    }

    /** The {@code Retry-After} value of the retry-after scenario: seconds, or an HTTP date. */
    public Builder retryAfter(String value) {
      this.retryAfter = requireNonNull(value, "value");
      return this;
    }

    public Builder imdsDelayMillis(long millis) {
      this.imdsDelayMillis = millis;
      return this;
    }

    /** The IMDS instance document to serve instead of the built-in sample. */
    public Builder instanceJson(String json) {
      this.instanceJson = requireNonNull(json, "json");
      return this;
    }

    /** Where the simulator says what it receives (default: nowhere). */
    public Builder log(Consumer<String> log) {
      this.log = requireNonNull(log, "log");
      return this;
    }

    public AzureSimulator start() {
      if (failures < 0) {
        failures =
            switch (scenario) {
              case IMDS_MALFORMED, RETRY_AFTER -> 2;
              case IMDS_STALLS, IMDS_TRICKLES, WIRESERVER_STALLS -> 1;
              default -> 3;
            };
      }
      try {
        return new AzureSimulator(this);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot start the simulator on loopback", e);
      }
    }
  }
}
