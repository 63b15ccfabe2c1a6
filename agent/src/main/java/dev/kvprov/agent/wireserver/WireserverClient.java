package dev.kvprov.agent.wireserver;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.xml.XmlFactory;
import com.fasterxml.jackson.dataformat.xml.XmlMapper;
import dev.kvprov.agent.config.AgentConfig;
import dev.kvprov.agent.http.Attempts;
import dev.kvprov.agent.http.Backoff;
import dev.kvprov.agent.http.BoundedExchange;
import dev.kvprov.agent.http.Deadline;
import dev.kvprov.otel.KvprovAttributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.io.IOException;
import java.io.StringWriter;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.Optional;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamWriter;

/**
 * Reports health to the wireserver, in either protocol: JSON {@code /provisioning/health} (the
 * default), or goal state plus XML {@code /machine?comp=health}; when the JSON endpoint answers
 * 404, the XML protocol is used from then on. Every request is retried with backoff and jitter
 * (honouring {@code Retry-After}) until the overall deadline (20 minutes by default: the platform
 * reboots an unprovisioned VM at about that time). Each attempt is a span; one that failed is a
 * warning when another follows, an error when it was the last.
 */
public final class WireserverClient {
  private static final String XML_VERSION = "2012-11-30";
  private static final int MAX_BODY_BYTES = 1 << 20;
  private static final String HEALTH_REPORT = "the health report";

  /** The 4xx answers worth trying again (as for IMDS): anything else in 4xx is final. */
  private static final java.util.Set<Integer> RETRYABLE = java.util.Set.of(404, 408, 410, 429);

  private final AgentConfig.Wireserver settings;
  private final String agent;
  private final Tracer tracer;

  /**
   * The wireserver is never reached through a proxy, nor redirected: BoundedExchange does neither.
   */
  private final Duration connectTimeout;

  private final Backoff backoff = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(30));

  /** For the goal state: built on first use, as the JSON protocol (the default) needs none. */
  private XmlMapper xml;

  private volatile boolean useXml;

  /**
   * @param agent the agent's name and version as the platform sees it, e.g. {@code kvprov v0.1.0}
   */
  public WireserverClient(AgentConfig.Wireserver settings, String agent, Tracer tracer) {
    this.settings = requireNonNull(settings, "settings");
    this.agent = requireNonNull(agent, "agent");
    this.tracer = requireNonNull(tracer, "tracer");
    this.useXml = settings.protocol().equals("xml");
    this.connectTimeout =
        settings.connectTimeout().isZero() ? Duration.ofMillis(1) : settings.connectTimeout();
  }

  /** The goal state's reader: no DTD, no external entity. */
  private synchronized XmlMapper xml() {
    if (xml == null) {
      XMLInputFactory input = new XmlFactory().getXMLInputFactory();
      input.setProperty(XMLInputFactory.SUPPORT_DTD, false);
      input.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
      xml = new XmlMapper(new XmlFactory(input));
    }
    return xml;
  }

  /** Reports {@code health}, retrying until it is accepted or the deadline passes. */
  public void report(Health health) throws WireserverException, InterruptedException {
    report(health, Deadline.after(settings.totalTimeout()), false);
  }

  /**
   * Reports {@code health} once: one attempt per request, each with the usual read timeout, no
   * retry. For the Ready that hands a Savable VM to its pool: the platform takes the VM's NIC as
   * soon as it hears it, so the answer is often lost, and a retry could only go out later, on the
   * customer's NIC. A failure is a warning on the spans, not an error.
   *
   * @throws WireserverException when the attempt got no acceptance (which does not mean the
   *     platform did not hear it)
   */
  public void reportOnce(Health health) throws WireserverException, InterruptedException {
    // a spent budget: Deadline#forAttempt gives the one attempt the whole read timeout
    report(health, Deadline.after(Duration.ZERO), true);
  }

  private void report(Health health, Deadline deadline, boolean lossExpected)
      throws WireserverException, InterruptedException {
    Span span =
        tracer
            .spanBuilder("wireserver.report")
            .setAttribute("health.state", health.state())
            .setAttribute("health.substatus", String.valueOf(health.subStatus()))
            .startSpan();
    if (lossExpected) {
      span.setAttribute("attempts.max", 1L);
    }
    try (Scope ignored = span.makeCurrent()) {
      if (!useXml) {
        int status = send(deadline, "json health", () -> jsonRequest(health), true, lossExpected);
        if (status != 404) {
          span.setAttribute("wireserver.protocol", "json");
          return;
        }
        span.addEvent("the JSON health endpoint answered 404: using the goal-state protocol");
        useXml = true;
      }
      span.setAttribute("wireserver.protocol", "xml");
      reportXml(health, deadline, lossExpected);
    } catch (WireserverException e) {
      if (lossExpected) {
        span.setAttribute(KvprovAttributes.WARNING, "not confirmed: " + e.getMessage());
      } else {
        span.setStatus(StatusCode.ERROR, e.getMessage());
      }
      throw e;
    } finally {
      span.end();
    }
  }

  private HttpRequest jsonRequest(Health health) {
    return request("/provisioning/health")
        .header("x-ms-guest-agent-name", agent)
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(jsonBody(health), UTF_8))
        .build();
  }

  /**
   * The JSON health report, written by Jackson's generator: a node tree's {@code toString} would
   * start an {@code ObjectMapper} (~70 ms on a first boot's path) for one line.
   */
  static String jsonBody(Health health) {
    StringWriter out = new StringWriter();
    try (JsonGenerator json = JSON.createGenerator(out)) {
      json.writeStartObject();
      json.writeStringField("state", health.state());
      if (health.subStatus() != null) {
        json.writeObjectFieldStart("details");
        json.writeStringField("subStatus", health.subStatus());
        json.writeStringField("description", health.description());
        json.writeEndObject();
      }
      json.writeEndObject();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e); // a StringWriter does not fail
    }
    return out.toString();
  }

  private static final JsonFactory JSON = new JsonFactory();

  private void reportXml(Health health, Deadline deadline, boolean lossExpected)
      throws WireserverException, InterruptedException {
    String versions =
        fetch(
            deadline,
            HEALTH_REPORT,
            "versions",
            () -> request("/?comp=versions").GET().build(),
            lossExpected);
    if (!versions.contains(XML_VERSION)) {
      throw new WireserverException(
          "the wireserver does not offer protocol version " + XML_VERSION);
    }
    GoalState state = GoalState.parse(goalState(deadline, HEALTH_REPORT, lossExpected), xml());
    String body = healthXml(state, health);
    send(
        deadline,
        "xml health",
        () ->
            xmlHeaders(request("/machine?comp=health"))
                .header("Content-Type", "text/xml;charset=utf-8")
                .POST(HttpRequest.BodyPublishers.ofString(body, UTF_8))
                .build(),
        false,
        lossExpected);
  }

  /**
   * The goal state's certificates document (XML, at most 1 MiB), which the wireserver encrypts to
   * {@code transportCertificate}.
   *
   * @param transportCertificate base64 DER of a certificate whose private key the caller holds
   * @param cipher the content cipher asked for, e.g. {@code DES_EDE3_CBC}
   */
  public byte[] certificates(String transportCertificate, String cipher)
      throws WireserverException, InterruptedException {
    requireNonNull(transportCertificate, "transportCertificate");
    requireNonNull(cipher, "cipher");
    Deadline deadline = Deadline.after(settings.totalTimeout());
    String purpose = "the certificates request";
    // Only the path and query of the URL the goal state names: the agent talks to the endpoint
    // its configuration names and no other (the goal state says 168.63.129.16:80 on Azure).
    URI named = GoalState.certificatesUrl(goalState(deadline, purpose, false), xml());
    String pathAndQuery =
        named.getRawPath() + (named.getRawQuery() == null ? "" : "?" + named.getRawQuery());
    byte[][] body = new byte[1][];
    attempts(
        deadline,
        purpose,
        "certificates",
        () ->
            xmlHeaders(request(pathAndQuery))
                .header("x-ms-cipher-name", cipher)
                .header("x-ms-guest-agent-public-x509-cert", transportCertificate)
                .GET()
                .build(),
        false,
        false,
        b -> body[0] = b);
    if (body[0].length > MAX_BODY_BYTES) {
      throw new WireserverException(
          "the goal state's certificates document is larger than " + MAX_BODY_BYTES + " bytes");
    }
    return body[0];
  }

  private String goalState(Deadline deadline, String purpose, boolean lossExpected)
      throws WireserverException, InterruptedException {
    return fetch(
        deadline,
        purpose,
        "goal state",
        () -> xmlHeaders(request("/machine/?comp=goalstate")).GET().build(),
        lossExpected);
  }

  private HttpRequest.Builder xmlHeaders(HttpRequest.Builder builder) {
    return builder.header("x-ms-version", XML_VERSION).header("x-ms-agent-name", agent);
  }

  private HttpRequest.Builder request(String pathAndQuery) {
    String base = settings.endpoint().toString().replaceAll("/+$", "");
    return HttpRequest.newBuilder(URI.create(base + pathAndQuery));
  }

  /** The goal-state ids a health report names. */
  record GoalState(String incarnation, String containerId, String instanceId) {
    static GoalState parse(String body, XmlMapper xml) throws WireserverException {
      try {
        JsonNode root = xml.readTree(body);
        JsonNode instance = root.path("Container").path("RoleInstanceList").path("RoleInstance");
        if (instance.isArray()) {
          instance = instance.path(0);
        }
        GoalState state =
            new GoalState(
                root.path("Incarnation").asText(""),
                root.path("Container").path("ContainerId").asText(""),
                instance.path("InstanceId").asText(""));
        if (state.incarnation().isEmpty()
            || state.containerId().isEmpty()
            || state.instanceId().isEmpty()) {
          throw new WireserverException(
              "the goal state lacks Incarnation, ContainerId or InstanceId");
        }
        return state;
      } catch (IOException e) {
        throw new WireserverException("the goal state is not readable XML: " + e.getMessage());
      }
    }

    /** The URL of the goal state's certificates document. */
    static URI certificatesUrl(String body, XmlMapper xml) throws WireserverException {
      JsonNode instance;
      try {
        instance =
            xml.readTree(body).path("Container").path("RoleInstanceList").path("RoleInstance");
      } catch (IOException e) {
        throw new WireserverException("the goal state is not readable XML: " + e.getMessage());
      }
      if (instance.isArray()) {
        instance = instance.path(0);
      }
      String url = instance.path("Configuration").path("Certificates").asText("").strip();
      if (url.isEmpty()) {
        throw new WireserverException("the goal state names no Certificates document");
      }
      try {
        URI uri = new URI(url);
        if (uri.getRawPath() == null || uri.getRawPath().isEmpty()) {
          throw new URISyntaxException(url, "no path");
        }
        return uri;
      } catch (URISyntaxException e) {
        throw new WireserverException("the goal state's Certificates URL is not a URL: " + url);
      }
    }
  }

  static String healthXml(GoalState goal, Health health) throws WireserverException {
    StringWriter out = new StringWriter();
    try {
      XMLStreamWriter w = new XmlFactory().getXMLOutputFactory().createXMLStreamWriter(out);
      w.writeStartDocument("utf-8", "1.0");
      w.writeStartElement("Health");
      w.writeNamespace("xsi", "http://www.w3.org/2001/XMLSchema-instance");
      w.writeNamespace("xsd", "http://www.w3.org/2001/XMLSchema");
      element(w, "GoalStateIncarnation", goal.incarnation());
      w.writeStartElement("Container");
      element(w, "ContainerId", goal.containerId());
      w.writeStartElement("RoleInstanceList");
      w.writeStartElement("Role");
      element(w, "InstanceId", goal.instanceId());
      w.writeStartElement("Health");
      element(w, "State", health.state());
      if (health.subStatus() != null) {
        w.writeStartElement("Details");
        element(w, "SubStatus", health.subStatus());
        element(w, "Description", health.description());
        w.writeEndElement();
      }
      w.writeEndElement(); // Health
      w.writeEndElement(); // Role
      w.writeEndElement(); // RoleInstanceList
      w.writeEndElement(); // Container
      w.writeEndElement(); // Health
      w.writeEndDocument();
      w.close();
    } catch (XMLStreamException e) {
      throw new WireserverException("cannot write the health report: " + e.getMessage());
    }
    return out.toString();
  }

  private static void element(XMLStreamWriter w, String name, String text)
      throws XMLStreamException {
    w.writeStartElement(name);
    w.writeCharacters(text);
    w.writeEndElement();
  }

  private interface RequestFactory {
    HttpRequest create();
  }

  private String fetch(
      Deadline deadline, String purpose, String what, RequestFactory factory, boolean lossExpected)
      throws WireserverException, InterruptedException {
    String[] body = new String[1];
    attempts(
        deadline,
        purpose,
        what,
        factory,
        false,
        lossExpected,
        b -> body[0] = new String(b, 0, Math.min(b.length, MAX_BODY_BYTES), UTF_8));
    return body[0];
  }

  private int send(
      Deadline deadline,
      String what,
      RequestFactory factory,
      boolean notFoundIsAnswer,
      boolean lossExpected)
      throws WireserverException, InterruptedException {
    return attempts(
        deadline, HEALTH_REPORT, what, factory, notFoundIsAnswer, lossExpected, b -> {});
  }

  /**
   * Tries until a 2xx (or, if asked, a 404) arrives; returns the status.
   *
   * @param purpose what the failure message says did not get through
   * @param lossExpected whether a last attempt that fails is a warning (the answer was expected to
   *     be lost), not an error
   * @param body given the answer's body: its first {@link #MAX_BODY_BYTES}, one more when longer
   */
  private int attempts(
      Deadline deadline,
      String purpose,
      String what,
      RequestFactory factory,
      boolean notFoundIsAnswer,
      boolean lossExpected,
      java.util.function.Consumer<byte[]> body)
      throws WireserverException, InterruptedException {
    String last = "no attempt was made";
    for (int attempt = 1; ; attempt++) {
      Span span =
          tracer
              .spanBuilder("wireserver.attempt")
              .setAttribute("request", what)
              .setAttribute("attempt", (long) attempt)
              .startSpan();
      Optional<Duration> retryAfter = Optional.empty();
      try (Scope ignored = span.makeCurrent()) {
        Duration limit = deadline.forAttempt(settings.readTimeout());
        BoundedExchange.Answer answer =
            BoundedExchange.send(connectTimeout, factory.create(), MAX_BODY_BYTES, limit);
        int status = answer.status();
        span.setAttribute("http.response.status_code", (long) status);
        if ((status >= 200 && status < 300) || (notFoundIsAnswer && status == 404)) {
          body.accept(answer.body());
          span.end();
          return status;
        }
        last = what + ": HTTP " + status;
        if (status >= 400 && status < 500 && !RETRYABLE.contains(status)) {
          // a refusal (403 off Azure, 400 for a request it will never take): retrying for the
          // whole budget would only keep the boot waiting
          String failure = last + ", which retrying will not change";
          span.setStatus(StatusCode.ERROR, failure);
          span.end();
          throw new WireserverException(
              "the wireserver refused "
                  + purpose
                  + " after "
                  + attempt
                  + " attempt(s): "
                  + failure);
        }
        retryAfter = Backoff.retryAfter(answer.headers());
      } catch (IOException e) {
        last = what + ": " + BoundedExchange.describe(e);
      }
      Optional<Duration> wait = backoff.waitBefore(attempt, retryAfter, deadline);
      if (wait.isEmpty() && lossExpected) {
        span.setAttribute(KvprovAttributes.WARNING, last);
        span.end();
      } else {
        Attempts.failed(span, last, wait);
      }
      if (wait.isEmpty() && lossExpected) {
        throw new WireserverException(purpose + " got no answer in its one attempt: " + last);
      }
      if (wait.isEmpty()) {
        throw new WireserverException(
            purpose
                + " did not reach the wireserver "
                + deadline.spent(attempt)
                + "; last: "
                + last);
      }
      Deadline.sleep(wait.get());
    }
  }
}
