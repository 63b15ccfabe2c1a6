package dev.kvprov.agent.imds;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
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
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Fetches this VM's instance metadata from IMDS: never through a proxy, with {@code Metadata:
 * true}, retrying transport errors, 404/408/410/429/5xx and malformed bodies with exponential
 * backoff and jitter (honouring {@code Retry-After}) until the overall deadline. Each attempt is a
 * span with its status code; one that failed is a warning when another follows, an error when it
 * was the last. The parse is a span too.
 */
public final class ImdsClient {
  /** The API version asked for; the fields used are stable across versions. */
  public static final String API_VERSION = "2023-11-15";

  private static final Set<Integer> RETRYABLE = Set.of(404, 408, 410, 429);
  private static final int MAX_BODY_BYTES = 1 << 20;

  /** As {@code OvfParser.MAX_BYTES}: the reprovisioning data is an ovf-env.xml. */
  private static final int OVF_MAX_BYTES = 256 * 1024;

  private final AgentConfig.Imds settings;
  private final Tracer tracer;

  /** IMDS is never reached through a proxy, nor redirected: BoundedExchange does neither. */
  private final Duration connectTimeout;

  /** An answer of the usual shape, with nothing of any VM's in it: {@link #warmUp}'s. */
  private static final String SAMPLE =
      """
      {"compute": {"vmId": "00000000-0000-4000-8000-000000000000", "name": "warm-up",
        "location": "here", "vmSize": "none", "userData": "",
        "osProfile": {"adminUsername": "warm", "computerName": "warm-up",
          "disablePasswordAuthentication": "true"},
        "publicKeys": [{"keyData": "ssh-ed25519 AAAA", "path": "/home/warm/.ssh/authorized_keys"}],
        "extended": {"a": 1}},
       "network": {"interface": []}, "extended": {"compute": {"ppsType": "None"}}}
      """;

  private final Backoff backoff;

  public ImdsClient(AgentConfig.Imds settings, Tracer tracer) {
    this.settings = requireNonNull(settings, "settings");
    this.tracer = requireNonNull(tracer, "tracer");
    this.connectTimeout = positive(settings.connectTimeout());
    Duration initial =
        settings.retryInterval().isZero() ? Duration.ofMillis(100) : settings.retryInterval();
    this.backoff = new Backoff(initial, initial.multipliedBy(16));
  }

  private static Duration positive(Duration d) {
    return d.isZero() ? Duration.ofMillis(1) : d;
  }

  /**
   * Reads and checks an answer of the usual shape, touching nothing else: loads the parser and the
   * classes a first parse needs, ahead of it, on another thread ({@code Warmup}).
   */
  public static void warmUp() throws IOException {
    ImdsInstance instance;
    try {
      instance =
          ImdsJson.instance(
                  ImdsJson.tree(SAMPLE.getBytes(java.nio.charset.StandardCharsets.UTF_8))
                      .orElseThrow())
              .orElseThrow();
    } catch (ImdsJson.NotMetadata e) {
      throw new IllegalStateException("the warm-up's sample is not metadata", e);
    }
    ImdsValidation.problems(instance);
    instance.ppsType();
    instance.privateIpv4();
  }

  /** The URL asked for. */
  URI uri() {
    String base = settings.endpoint().toString().replaceAll("/+$", "");
    return URI.create(base + "/metadata/instance?api-version=" + API_VERSION + "&extended=true");
  }

  /**
   * Fetches, parses and checks the instance metadata.
   *
   * @throws ImdsException when the deadline passes without a good answer, IMDS refuses for good
   *     (400, 403), or the metadata holds values the agent must not act on
   * @throws InterruptedException if the thread is interrupted while waiting
   */
  public ImdsInstance fetch() throws ImdsException, InterruptedException {
    Span fetch = tracer.spanBuilder("imds.fetch").setAttribute("url", uri().toString()).startSpan();
    try (Scope ignored = fetch.makeCurrent()) {
      ImdsInstance instance = fetchWithRetries();
      fetch.setAttribute("imds.vm_id", String.valueOf(instance.compute().vmId()));
      return instance;
    } catch (ImdsException e) {
      fetch.setStatus(StatusCode.ERROR, e.getMessage());
      throw e;
    } finally {
      fetch.end();
    }
  }

  private ImdsInstance fetchWithRetries() throws ImdsException, InterruptedException {
    Deadline deadline = Deadline.after(settings.totalTimeout());
    String lastFailure = "no attempt was made";
    for (int attempt = 1; ; attempt++) {
      Span span =
          tracer.spanBuilder("imds.attempt").setAttribute("attempt", (long) attempt).startSpan();
      Optional<Duration> retryAfter = Optional.empty();
      try (Scope ignored = span.makeCurrent()) {
        Duration limit = deadline.forAttempt(settings.readTimeout());
        HttpRequest request =
            HttpRequest.newBuilder(uri()).header("Metadata", "true").GET().build();
        BoundedExchange.Answer answer =
            BoundedExchange.send(connectTimeout, request, MAX_BODY_BYTES, limit);
        int status = answer.status();
        span.setAttribute("http.response.status_code", (long) status);
        if (status == 200) {
          if (answer.tooLong(MAX_BODY_BYTES)) {
            lastFailure = "the metadata is larger than " + MAX_BODY_BYTES + " bytes";
          } else {
            Optional<ImdsInstance> parsed;
            try {
              parsed = parse(answer.body(), attempt);
            } catch (ImdsException rejected) {
              // An answer, not worth another attempt: this one ends with it, not open forever.
              span.setStatus(StatusCode.ERROR, rejected.getMessage());
              span.end();
              throw rejected;
            }
            if (parsed.isPresent()) {
              span.end();
              return parsed.get();
            }
            lastFailure = "the metadata is not valid JSON";
          }
        } else if (RETRYABLE.contains(status) || status >= 500) {
          lastFailure = "IMDS answered HTTP " + status;
          retryAfter = Backoff.retryAfter(answer.headers());
        } else {
          String failure = "IMDS answered HTTP " + status + ", which retrying will not change";
          span.setStatus(StatusCode.ERROR, failure);
          span.end();
          throw new ImdsException(failure, attempt, null, true);
        }
      } catch (IOException e) {
        lastFailure = "IMDS could not be reached: " + BoundedExchange.describe(e);
      }
      Optional<Duration> wait = backoff.waitBefore(attempt, retryAfter, deadline);
      Attempts.failed(span, lastFailure, wait);
      if (wait.isEmpty()) {
        throw new ImdsException(
            "no usable answer from IMDS " + deadline.spent(attempt) + "; last: " + lastFailure,
            attempt,
            null);
      }
      Deadline.sleep(wait.get());
    }
  }

  /**
   * Waits for a pre-provisioned VM to be handed to its customer: polls IMDS's {@code
   * reprovisiondata} until it answers with the customer's {@code ovf-env.xml}. Until then IMDS
   * answers 404 (or fails as IMDS sometimes does): asked again with the usual backoff, for as long
   * as it takes — a pooled VM waits for its customer. One span for the whole wait: a pool may wait
   * for hours, and each poll a record would drown the trace.
   *
   * @param stillWaiting called before each poll (they are at most a minute plus the read timeout
   *     apart), so that systemd's start timeout can be pushed on
   * @throws ImdsException when IMDS refuses for good (400, 403), or the document is too large
   */
  public byte[] reprovisionData(Runnable stillWaiting) throws ImdsException, InterruptedException {
    URI uri =
        URI.create(
            settings.endpoint().toString().replaceAll("/+$", "")
                + "/metadata/reprovisiondata?api-version=2019-06-01");
    Span span = tracer.spanBuilder("pps.wait").setAttribute("url", uri.toString()).startSpan();
    Deadline forever = Deadline.after(Duration.ofDays(3650));
    try (Scope ignored = span.makeCurrent()) {
      for (int poll = 1; ; poll++) {
        span.setAttribute("polls", (long) poll);
        stillWaiting.run();
        Optional<Duration> retryAfter = Optional.empty();
        try {
          HttpRequest request =
              HttpRequest.newBuilder(uri).header("Metadata", "true").GET().build();
          BoundedExchange.Answer answer =
              BoundedExchange.send(connectTimeout, request, OVF_MAX_BYTES, settings.readTimeout());
          int status = answer.status();
          if (status == 200 && !answer.tooLong(OVF_MAX_BYTES)) {
            span.setAttribute("bytes", (long) answer.body().length);
            return answer.body();
          }
          if (status == 200) {
            throw new ImdsException(
                "the reprovisioning data is larger than " + OVF_MAX_BYTES + " bytes", poll, null);
          }
          if (!RETRYABLE.contains(status) && status < 500) {
            throw new ImdsException(
                "IMDS answered HTTP " + status + " for the reprovisioning data", poll, null);
          }
          // a minute at most between polls, whatever IMDS asks: the customer is waiting
          retryAfter =
              Backoff.retryAfter(answer.headers())
                  .map(d -> d.compareTo(Duration.ofMinutes(1)) > 0 ? Duration.ofMinutes(1) : d);
        } catch (IOException e) {
          // not handed over yet, or the network moved under us: ask again
        }
        Deadline.sleep(backoff.waitBefore(Math.min(poll, 8), retryAfter, forever).orElseThrow());
      }
    } catch (ImdsException e) {
      span.setStatus(StatusCode.ERROR, e.getMessage());
      throw e;
    } finally {
      span.end();
    }
  }

  /**
   * The parsed, checked instance; empty if the body is not JSON (worth another attempt: a body cut
   * short or a proxy's page). JSON that is not instance metadata — not an object, a section or a
   * field kvprov reads of another type ({@code "compute": "x"}, {@code "osProfile": []}), or no
   * {@code compute} at all ({@code {}}) — is an answer, the same however often it is asked: it is
   * rejected, as metadata with values kvprov must not act on is, and the media do not overrule it.
   */
  private Optional<ImdsInstance> parse(byte[] body, int attempt) throws ImdsException {
    Span span =
        tracer.spanBuilder("imds.parse").setAttribute("bytes", (long) body.length).startSpan();
    try (Scope ignored = span.makeCurrent()) {
      Optional<JsonNode> tree = ImdsJson.tree(body);
      if (tree.isEmpty()) {
        span.setAttribute(KvprovAttributes.WARNING, "not valid JSON: the body is empty");
        return Optional.empty();
      }
      List<String> problems;
      ImdsInstance instance = null;
      boolean shaped = false;
      try {
        instance = ImdsJson.instance(tree.get()).orElse(null);
        problems = ImdsValidation.problems(instance);
        shaped = ImdsValidation.shaped(instance);
      } catch (ImdsJson.NotMetadata e) {
        problems = List.of(e.getMessage());
      }
      if (!problems.isEmpty()) {
        String failure = "IMDS metadata rejected: " + String.join("; ", problems);
        span.setStatus(StatusCode.ERROR, failure);
        throw shaped
            ? ImdsException.valuesRefused(failure, attempt)
            : new ImdsException(failure, attempt, null, true);
      }
      return Optional.of(instance);
    } catch (JacksonException e) {
      // Worth another attempt: whether this was the last, the attempt's span says.
      span.setAttribute(KvprovAttributes.WARNING, "not valid JSON: " + e.getOriginalMessage());
      return Optional.empty();
    } catch (IOException e) {
      span.setAttribute(KvprovAttributes.WARNING, "not readable: " + e.getMessage());
      return Optional.empty();
    } finally {
      span.end();
    }
  }
}
