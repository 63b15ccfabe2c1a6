package dev.kvprov.agent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The time limit of one exchange, against a real server on loopback that never finishes. */
class BoundedExchangeTest {
  /** A byte every 50 ms: each read completes well within any read timeout, the body never does. */
  private static final int TRICKLE_MILLIS = 50;

  private HttpServer server;
  private URI uri;

  @BeforeEach
  void trickler() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          exchange.sendResponseHeaders(200, 100_000);
          try (OutputStream body = exchange.getResponseBody()) {
            for (int i = 0; i < 100_000; i++) {
              body.write('x');
              body.flush();
              Thread.sleep(TRICKLE_MILLIS);
            }
          } catch (IOException | InterruptedException clientGone) {
            // the client gave up, as it should
          }
        });
    server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    server.start();
    uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @Test
  void aTricklingBody_isCutAtTheLimit() {
    assertThatThrownBy(
            () ->
                assertTimeoutPreemptively(
                    Duration.ofSeconds(30),
                    () -> BoundedExchange.send(Duration.ofSeconds(5), get(), 1 << 20, limit())))
        .isInstanceOf(HttpTimeoutException.class)
        .hasMessage("no complete answer within 1 s");
  }

  /**
   * On a loaded machine the watchdog can fire before the connection exists, when closing it closes
   * nothing: the exchange must still end at its limit, not when the server stops sending.
   */
  @Test
  void aWatchdogThatFiresBeforeTheConnectionExists_stillEndsTheExchange() {
    try (FiresAtOnce watchdog = new FiresAtOnce()) {
      assertThatThrownBy(
              () ->
                  assertTimeoutPreemptively(
                      Duration.ofSeconds(30),
                      () ->
                          BoundedExchange.send(
                              Duration.ofSeconds(5), get(), 1 << 20, limit(), watchdog)))
          .isInstanceOf(HttpTimeoutException.class)
          .hasMessageStartingWith("no ")
          .hasMessageEndingWith(" within 1 s");
      assertThat(watchdog.fired).isTrue();
    }
  }

  private HttpRequest get() {
    return HttpRequest.newBuilder(uri).GET().build();
  }

  private static Duration limit() {
    return Duration.ofSeconds(1);
  }

  /** Runs the watchdog's task as soon as it is scheduled, before the exchange connects. */
  private static final class FiresAtOnce extends ScheduledThreadPoolExecutor
      implements AutoCloseable {
    volatile boolean fired;

    FiresAtOnce() {
      super(1);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
      ScheduledFuture<?> now = super.schedule(task, 0, unit);
      try {
        now.get();
      } catch (InterruptedException | ExecutionException e) {
        throw new AssertionError(e);
      }
      fired = true;
      return now;
    }

    @Override
    public void close() {
      shutdownNow();
    }
  }
}
