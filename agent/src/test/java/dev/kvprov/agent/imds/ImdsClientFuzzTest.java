package dev.kvprov.agent.imds;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.sun.net.httpserver.HttpServer;
import dev.kvprov.agent.config.AgentConfig;
import io.opentelemetry.api.OpenTelemetry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;

/**
 * Instance metadata of any bytes, served over real HTTP on loopback to the real client, by a
 * coverage-guided fuzzer: an instance with no problem to act on, or an {@link ImdsException},
 * nothing else. {@code ./mvnw verify} replays the committed seeds ({@code
 * ImdsClientFuzzTestInputs}); {@code .ci/run} fuzzes for a bounded time.
 */
class ImdsClientFuzzTest {
  /** What the server answers next: the fuzzer's input of the moment. */
  private static volatile byte[] body = new byte[0];

  private static final HttpServer SERVER = server();

  /** One attempt's worth of deadline: an answer that is not JSON ends the fetch soon. */
  private static final ImdsClient CLIENT =
      new ImdsClient(
          new AgentConfig.Imds(
              URI.create("http://127.0.0.1:" + SERVER.getAddress().getPort()),
              Duration.ofSeconds(2),
              Duration.ofSeconds(2),
              Duration.ofMillis(1),
              Duration.ofMillis(1)),
          OpenTelemetry.noop().getTracer("fuzz"));

  @FuzzTest(maxDuration = "60s")
  void fetch_ofAnyAnswer_givesACheckedInstanceOrAnImdsException(byte[] answer)
      throws InterruptedException {
    body = answer;
    try {
      ImdsInstance instance = CLIENT.fetch();
      assertThat(ImdsValidation.problems(instance)).isEmpty();
    } catch (ImdsException expected) {
      // not acted on, in plain words
    }
  }

  private static HttpServer server() {
    try {
      HttpServer server =
          HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      server.createContext(
          "/",
          exchange -> {
            byte[] answer = body;
            exchange.sendResponseHeaders(200, answer.length == 0 ? -1 : answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
          });
      server.start();
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
