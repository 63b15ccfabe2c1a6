package dev.kvprov.otel;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A real OTLP/HTTP receiver on loopback: decodes the protobuf requests with the OpenTelemetry proto
 * classes and keeps the raw bytes too, for checks on what went over the wire.
 */
final class OtlpReceiver implements AutoCloseable {
  private final HttpServer server;
  private final List<Span> spans = new ArrayList<>();
  private final List<LogRecord> logs = new ArrayList<>();
  private final ByteArrayOutputStream wire = new ByteArrayOutputStream();
  private final CountDownLatch release = new CountDownLatch(1);
  private final long stallMillis;

  /** A receiver that answers at once ({@code stallMillis} 0) or only after that long. */
  OtlpReceiver(long stallMillis) throws IOException {
    this.stallMillis = stallMillis;
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(Executors.newFixedThreadPool(2));
    server.createContext(
        "/v1/traces",
        exchange -> {
          byte[] body = exchange.getRequestBody().readAllBytes();
          stall();
          synchronized (this) {
            wire.writeBytes(body);
            ExportTraceServiceRequest.parseFrom(body).getResourceSpansList().stream()
                .flatMap(r -> r.getScopeSpansList().stream())
                .forEach(s -> spans.addAll(s.getSpansList()));
          }
          respond(exchange, ExportTraceServiceResponse.getDefaultInstance().toByteArray());
        });
    server.createContext(
        "/v1/logs",
        exchange -> {
          byte[] body = exchange.getRequestBody().readAllBytes();
          stall();
          synchronized (this) {
            wire.writeBytes(body);
            ExportLogsServiceRequest.parseFrom(body).getResourceLogsList().stream()
                .flatMap(r -> r.getScopeLogsList().stream())
                .forEach(s -> logs.addAll(s.getLogRecordsList()));
          }
          respond(exchange, ExportLogsServiceResponse.getDefaultInstance().toByteArray());
        });
    server.start();
  }

  private void stall() {
    if (stallMillis > 0) {
      try {
        release.await(stallMillis, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static void respond(com.sun.net.httpserver.HttpExchange exchange, byte[] body)
      throws IOException {
    exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
    exchange.sendResponseHeaders(200, body.length);
    exchange.getResponseBody().write(body);
    exchange.close();
  }

  String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  synchronized List<Span> spans() {
    return List.copyOf(spans);
  }

  synchronized List<LogRecord> logs() {
    return List.copyOf(logs);
  }

  synchronized byte[] wireBytes() {
    return wire.toByteArray();
  }

  @Override
  public void close() {
    release.countDown();
    server.stop(0);
    ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
  }
}
