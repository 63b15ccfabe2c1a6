package dev.kvprov.inspect;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A real OTLP/HTTP trace receiver on loopback: decodes each request's protobuf with the
 * OpenTelemetry proto classes, and answers with a chosen HTTP status — or, stalled, not at all
 * until it is closed.
 */
public final class OtlpTraceReceiver implements AutoCloseable {
  private final HttpServer server;
  private final ExecutorService executor = Executors.newFixedThreadPool(2);
  private final int status;
  private final boolean stall;
  private final CountDownLatch closed = new CountDownLatch(1);
  private final List<ExportTraceServiceRequest> requests = new ArrayList<>();
  private final List<Map<String, List<String>>> headers = new ArrayList<>();
  private final List<String> queries = new ArrayList<>();

  public static OtlpTraceReceiver answering(int status) throws IOException {
    return new OtlpTraceReceiver(status, false);
  }

  public static OtlpTraceReceiver stalled() throws IOException {
    return new OtlpTraceReceiver(200, true);
  }

  private OtlpTraceReceiver(int status, boolean stall) throws IOException {
    this.status = status;
    this.stall = stall;
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(executor);
    server.createContext("/v1/traces", this::handle);
    server.start();
  }

  private void handle(HttpExchange exchange) throws IOException {
    byte[] body = exchange.getRequestBody().readAllBytes();
    synchronized (this) {
      requests.add(ExportTraceServiceRequest.parseFrom(body));
      headers.add(Map.copyOf(exchange.getRequestHeaders()));
      queries.add(exchange.getRequestURI().getRawQuery());
    }
    if (stall) {
      try {
        closed.await(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    byte[] answer =
        status == 200 ? ExportTraceServiceResponse.getDefaultInstance().toByteArray() : new byte[0];
    exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
    exchange.sendResponseHeaders(status, answer.length == 0 ? -1 : answer.length);
    exchange.getResponseBody().write(answer);
    exchange.close();
  }

  /** The traces URL. */
  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1/traces";
  }

  public synchronized List<ExportTraceServiceRequest> requests() {
    return List.copyOf(requests);
  }

  /** The raw query of each request, as the collector received it (null without one). */
  public synchronized List<String> queries() {
    return new ArrayList<>(queries);
  }

  public synchronized List<Map<String, List<String>>> headers() {
    return List.copyOf(headers);
  }

  @Override
  public void close() {
    closed.countDown();
    server.stop(0);
    executor.shutdownNow();
  }
}
