package dev.kvprov.inspect.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvprov.inspect.pool.PoolSource;
import dev.kvprov.inspect.render.ExportedSpans;
import dev.kvprov.inspect.writers.SpanForest;
import dev.kvprov.otel.NetworkErrors;
import io.opentelemetry.api.metrics.MeterProvider;
import io.opentelemetry.exporter.logging.otlp.internal.traces.OtlpStdoutSpanExporter;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporterBuilder;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvp export}: the pool's spans as OTLP, to a collector or to a file. */
@Command(
    name = "export",
    mixinStandardHelpOptions = true,
    description = {
      "The spans as OTLP: sent to a collector, or written as OTLP JSON.",
      "",
      "Every writer's spans, as kvp tree shows them. --otlp posts them to an",
      "OTLP/HTTP collector (credentials go in --header, never in the URL);",
      "--otlp-json writes what the Collector's otlpjsonfile receiver reads.",
      "kvprov's trace, span and parent ids are kept; other writers' spans get ids",
      "derived from the pool, the same on every export. A span that never",
      "finished is exported with status ERROR and kvp.unfinished=true, ending at",
      "the pool's last time. One attempt, no retries: run it again to retry."
    },
    footer = {
      "",
      "",
      "Examples:",
      "  kvp export --otlp http://localhost:4318",
      "  kvp export --root /mnt/rescued-disk --otlp-json spans.jsonl",
      "  kvp export --otlp https://otlp.example.com --header \"Authorization=Bearer $T\""
    })
final class ExportCommand implements Callable<Integer> {
  /** The SDK reports why an export failed through java.util.logging, under this name. */
  private static final Logger SDK_LOGGER = Logger.getLogger("io.opentelemetry");

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin PoolOptions input;

  @Option(
      names = "--otlp",
      paramLabel = "URL",
      description =
          "Send to this OTLP/HTTP collector: its traces URL, or a base URL (then /v1/traces).")
  String otlp;

  @Option(
      names = "--otlp-json",
      paramLabel = "FILE",
      description = "Write OTLP JSON (one ExportTraceServiceRequest per line); - is stdout.")
  String otlpJson;

  @Option(
      names = "--header",
      paramLabel = "K=V",
      description = "An HTTP header for the collector, e.g. for its auth; repeatable.")
  List<String> headers = new ArrayList<>();

  @Option(
      names = "--timeout",
      paramLabel = "SECONDS",
      defaultValue = "10",
      description = "Give up on the collector after this long (default: ${DEFAULT-VALUE}).")
  int timeoutSeconds;

  @Override
  public Integer call() {
    if (otlp == null && otlpJson == null) {
      throw usage("say where to: --otlp URL, --otlp-json FILE, or both");
    }
    if (timeoutSeconds < 1) {
      throw usage("--timeout must be at least 1 second");
    }
    URI endpoint = otlp == null ? null : endpoint(otlp);
    Map<String, String> httpHeaders = headers();

    SpanForest forest = new SpanForest();
    ExportedSpans exported = new ExportedSpans(input.describe());
    if (!PoolReading.items(
        input,
        spec,
        item -> {
          forest.add(item);
          exported.accept(item);
        })) {
      return ExitCode.IO.code;
    }
    ExportedSpans.Result result = exported.spans(forest.finish());
    PrintWriter err = spec.commandLine().getErr();
    if (result.withoutStart() > 0) {
      err.println(
          "kvp export: "
              + result.withoutStart()
              + " span(s) without a start time left out (damaged records?)");
    }
    List<SpanData> spans = result.spans();
    if (spans.isEmpty()) {
      err.println("kvp export: no spans in " + input.describe() + "; nothing exported");
      return ExitCode.FOUND.code;
    }

    if (otlpJson != null) {
      Optional<String> failure = writeJson(spans);
      if (failure.isPresent()) {
        err.println("kvp export: " + failure.get());
        return ExitCode.IO.code;
      }
      err.println(summary(spans, otlpJson.equals("-") ? "stdout" : otlpJson));
    }
    if (endpoint != null) {
      Optional<String> failure = send(spans, endpoint, httpHeaders);
      if (failure.isPresent()) {
        err.println("kvp export: " + shown(endpoint) + ": " + failure.get());
        return ExitCode.IO.code;
      }
      err.println(summary(spans, shown(endpoint)));
    }
    return ExitCode.OK.code;
  }

  private CommandLine.ParameterException usage(String message) {
    return new CommandLine.ParameterException(spec.commandLine(), message);
  }

  /**
   * A collector's base URL gets the traces path, as OTEL_EXPORTER_OTLP_ENDPOINT does. No message
   * quotes the URL: it may hold a password.
   */
  private URI endpoint(String url) {
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      // Its message would quote the URL.
      throw usage("--otlp: not a URL: " + e.getReason() + " at character " + (e.getIndex() + 1));
    }
    // The exporter would drop them without a word, and the collector would see no Authorization.
    if (uri.getRawAuthority() != null && uri.getRawAuthority().contains("@")) {
      throw usage(
          "--otlp: credentials in a URL are not sent; pass them as --header Authorization=...");
    }
    if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())
        || uri.getHost() == null) {
      throw usage("--otlp: not an http:// or https:// URL with a host");
    }
    String path = uri.getRawPath();
    if (path != null && !path.isEmpty() && !path.equals("/")) {
      return uri;
    }
    // Spliced as text: the multi-part URI constructor would encode the query's % escapes again.
    String base = url.contains("?") ? url.substring(0, url.indexOf('?')) : url;
    String query = url.contains("?") ? url.substring(url.indexOf('?')) : "";
    return URI.create(
        (base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + "/v1/traces" + query);
  }

  /** Header values are often secrets: no message here repeats one. */
  private Map<String, String> headers() {
    Map<String, String> parsed = new LinkedHashMap<>();
    for (String header : headers) {
      int equals = header.indexOf('=');
      if (equals < 1) {
        throw usage("--header takes NAME=VALUE (value not shown)");
      }
      String name = header.substring(0, equals).trim();
      if (!name.matches("[!#$%&'*+.^_`|~0-9A-Za-z-]+")) {
        // e.g. "Authorization: Basic dXNlcjpwYXNz=": the "name" is the secret.
        throw usage("--header: not a header name before the = (not shown)");
      }
      String value = header.substring(equals + 1);
      // The HTTP client would refuse it later, quoting the value in its message.
      if (value.chars().anyMatch(c -> c < 0x20 && c != '\t' || c == 0x7f)) {
        throw usage("--header " + name + ": control characters in the value (value not shown)");
      }
      parsed.put(name, value);
    }
    return parsed;
  }

  /** The URL as said back to the user: without credentials or query. */
  private static String shown(URI uri) {
    try {
      return new URI(uri.getScheme(), null, uri.getHost(), uri.getPort(), uri.getPath(), null, null)
          .toString();
    } catch (URISyntaxException e) {
      return uri.getScheme() + "://" + uri.getHost();
    }
  }

  private Optional<String> writeJson(List<SpanData> spans) {
    // Rendered whole, then written: a pool holds at most a few thousand spans, and a write error
    // then surfaces here as an IOException (the JSON exporter would only log it).
    ByteArrayOutputStream json = new ByteArrayOutputStream();
    // The OTLP JSON writer of opentelemetry-exporter-logging-otlp; its package is marked internal
    // but it is the only one that takes a stream. The version is pinned, and ExportCommandTest
    // checks the format.
    SpanExporter exporter = OtlpStdoutSpanExporter.builder().setOutput(json).build();
    CompletableResultCode rendered = exporter.export(spans);
    exporter.shutdown();
    if (!rendered.isSuccess()) {
      return Optional.of("could not render the spans as OTLP JSON");
    }
    if (otlpJson.equals("-")) {
      PrintWriter out = spec.commandLine().getOut();
      out.print(json.toString(UTF_8));
      out.flush();
      return Optional.empty();
    }
    try {
      Files.write(Path.of(otlpJson), json.toByteArray());
      return Optional.empty();
    } catch (java.nio.file.NoSuchFileException e) {
      return Optional.of(otlpJson + ": no such directory");
    } catch (java.nio.file.AccessDeniedException e) {
      return Optional.of(otlpJson + ": permission denied");
    } catch (IOException e) {
      return Optional.of(otlpJson + ": " + PoolSource.why(e));
    } catch (RuntimeException e) {
      return Optional.of(otlpJson + ": " + Defects.describe(e));
    }
  }

  /** Sends the spans in one request; the reason it failed, if it did. */
  private Optional<String> send(List<SpanData> spans, URI endpoint, Map<String, String> headers) {
    Duration timeout = Duration.ofSeconds(timeoutSeconds);
    SpanExporter exporter;
    try {
      OtlpHttpSpanExporterBuilder builder =
          OtlpHttpSpanExporter.builder()
              .setEndpoint(endpoint.toString())
              .setTimeout(timeout)
              .setConnectTimeout(timeout)
              .setRetryPolicy(null)
              .setMeterProvider(MeterProvider.noop());
      headers.forEach(builder::addHeader);
      exporter = builder.build();
    } catch (IllegalArgumentException e) {
      // Its message would quote the URL, credentials and all.
      return Optional.of("not an endpoint the OTLP exporter takes");
    }
    SdkComplaints complaints = new SdkComplaints();
    try {
      // The sender gives up after the timeout; the extra second lets its reason arrive first.
      CompletableResultCode sent =
          exporter.export(spans).join(timeoutSeconds + 1L, TimeUnit.SECONDS);
      if (sent.isSuccess()) {
        return Optional.empty();
      }
      if (!sent.isDone()) {
        return Optional.of("no answer within " + timeoutSeconds + " s");
      }
      return complaints.first().or(() -> Optional.ofNullable(describe(sent.getFailureThrowable())));
    } finally {
      exporter.shutdown().join(1, TimeUnit.SECONDS);
      complaints.close();
    }
  }

  /** What went wrong, in words. */
  private static String describe(Throwable failure) {
    return failure == null ? "the export failed" : NetworkErrors.describe(failure);
  }

  private static String summary(List<SpanData> spans, String destination) {
    Map<String, Long> byWriter =
        spans.stream()
            .collect(
                Collectors.groupingBy(
                    s -> s.getResource().getAttribute(ExportedSpans.SERVICE_NAME),
                    LinkedHashMap::new,
                    Collectors.counting()));
    return "exported "
        + spans.size()
        + (spans.size() == 1 ? " span (" : " spans (")
        + byWriter.entrySet().stream()
            .map(e -> e.getKey() + ": " + e.getValue())
            .collect(Collectors.joining(", "))
        + ") to "
        + destination;
  }

  /**
   * What the SDK says while an export runs, kept instead of printed: java.util.logging would print
   * it as multi-line records with stack traces, and the reason belongs in the one-line error.
   */
  private static final class SdkComplaints extends Handler implements AutoCloseable {
    private final boolean parentHandlers;
    private final List<String> complaints = new ArrayList<>();

    SdkComplaints() {
      synchronized (SDK_LOGGER) {
        parentHandlers = SDK_LOGGER.getUseParentHandlers();
        SDK_LOGGER.setUseParentHandlers(false);
        SDK_LOGGER.addHandler(this);
      }
    }

    @Override
    public synchronized void publish(LogRecord record) {
      if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
        // e.g. "Failed to export spans. Server responded with HTTP status code 500. Error
        // message: " -- the line already says it is about the export; an empty tail says nothing.
        String message =
            record
                .getMessage()
                .replaceFirst("^Failed to export spans\\.\\s*", "")
                .replaceFirst("\\s*Error message:\\s*$", "");
        Throwable thrown = record.getThrown();
        // the SDK's own words ("The request could not be executed.") say less than the cause
        complaints.add(
            thrown != null ? describe(thrown) : message.isBlank() ? "the export failed" : message);
      }
    }

    synchronized Optional<String> first() {
      return complaints.stream().findFirst();
    }

    @Override
    public void flush() {}

    @Override
    public void close() {
      synchronized (SDK_LOGGER) {
        SDK_LOGGER.removeHandler(this);
        SDK_LOGGER.setUseParentHandlers(parentHandlers);
      }
    }
  }
}
