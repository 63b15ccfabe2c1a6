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

  /**
   * A watchdog starved of CPU, or held up by another exchange's close, fires late: a body that
   * keeps trickling in is still cut at the limit, by the clock the reading thread checks itself.
   */
  @Test
  void aWatchdogThatNeverFires_stillLeavesATricklingBodyCutAtTheLimit() {
    // a day's delay: as good as never, within the test
    ScheduledThreadPoolExecutor late =
        new ScheduledThreadPoolExecutor(1) {
          @Override
          public ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
            return super.schedule(task, 1, TimeUnit.DAYS);
          }
        };
    try {
      assertThatThrownBy(
              () ->
                  assertTimeoutPreemptively(
                      Duration.ofSeconds(30),
                      () ->
                          BoundedExchange.send(
                              Duration.ofSeconds(5), get(), 1 << 20, limit(), late)))
          .isInstanceOf(HttpTimeoutException.class)
          .hasMessage("no complete answer within 1 s");
    } finally {
      late.shutdownNow();
    }
  }

  /**
   * The watchdog's close can land anywhere in an exchange: while it connects, sends, or reads the
   * status line. Wherever it lands, the exchange ends in an {@link java.io.IOException} (a time
   * limit passed), never in an exception from inside the JDK's HTTP code (which a run would take
   * for a bug of its own, exit 30, where it should have tried IMDS again).
   */
  @Test
  void theWatchdogsCloseLandingAnywhereInTheExchange_endsItAsATimeout() throws Exception {
    HttpServer slow =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    slow.createContext(
        "/",
        exchange -> {
          try {
            Thread.sleep(java.util.concurrent.ThreadLocalRandom.current().nextInt(3));
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          exchange.sendResponseHeaders(503, 5);
          exchange
              .getResponseBody()
              .write("busy\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
          exchange.close();
        });
    slow.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    slow.start();
    try {
      HttpRequest request =
          HttpRequest.newBuilder(
                  URI.create("http://127.0.0.1:" + slow.getAddress().getPort() + "/"))
              .GET()
              .build();
      java.util.Map<String, Integer> outcomes = new java.util.TreeMap<>();
      for (int i = 0; i < 1000; i++) {
        // limits of 0.1 to 2.5 ms: about the time an exchange takes here, so that the close
        // lands before, during and after its every phase
        Duration limit =
            Duration.ofNanos(
                java.util.concurrent.ThreadLocalRandom.current().nextLong(100_000, 2_500_000));
        try {
          BoundedExchange.send(Duration.ofSeconds(1), request, 1024, limit);
          outcomes.merge("answered", 1, Integer::sum);
        } catch (java.io.IOException e) {
          outcomes.merge("IOException", 1, Integer::sum);
        } catch (RuntimeException e) {
          outcomes.merge(e.toString(), 1, Integer::sum);
        }
      }
      assertThat(outcomes.keySet()).as("%s", outcomes).isSubsetOf("answered", "IOException");
    } finally {
      slow.stop(0);
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
