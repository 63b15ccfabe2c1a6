package dev.kvprov.agent.http;

import dev.kvprov.otel.NetworkErrors;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.Proxy;
import java.net.SocketTimeoutException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One HTTP request and its whole answer, headers and body, within one time limit.
 *
 * <p>A server that sends its headers and then stalls, or sends its body a byte at a time, must not
 * hold a boot for ever: the limit covers the body too (a watchdog closes the connection when it
 * passes), and the body is read only up to a size cap: a longer one is cut, and the connection
 * closed.
 *
 * <p>The request is made with {@link HttpURLConnection}, not the JDK's {@code HttpClient}: that
 * client keeps a selector thread in native code for as long as it lives, and HotSpot's exit waits
 * up to 300 ms for such threads — 300 ms of every first boot (docs/performance.md). The requests
 * are {@link HttpRequest}s all the same: a plain description of what to send.
 */
public final class BoundedExchange {
  /**
   * What came back.
   *
   * @param body at most the cap's bytes, plus one when the answer was longer ({@link #tooLong})
   */
  public record Answer(int status, HttpHeaders headers, byte[] body) {
    /** Whether the body was longer than the cap it was read with (its first cap + 1 bytes kept). */
    public boolean tooLong(int cap) {
      return body.length > cap;
    }
  }

  /** Closes the connections that outlive their limit; a daemon, asleep in Java when idle. */
  private static final ScheduledExecutorService WATCHDOG =
      Executors.newSingleThreadScheduledExecutor(
          task -> {
            Thread thread = new Thread(task, "kvprov-http-deadline");
            thread.setDaemon(true);
            return thread;
          });

  private BoundedExchange() {}

  /**
   * Sends {@code request} and waits at most {@code limit} for the whole answer.
   *
   * @param connectTimeout how long connecting may take (within {@code limit})
   * @param maxBodyBytes the body's cap: one byte more is kept to tell a longer body
   * @throws HttpTimeoutException when the answer is not complete within {@code limit}
   * @throws IOException when the exchange fails
   */
  public static Answer send(
      Duration connectTimeout, HttpRequest request, int maxBodyBytes, Duration limit)
      throws IOException, InterruptedException {
    return send(connectTimeout, request, maxBodyBytes, limit, WATCHDOG);
  }

  /** {@link #send}, its limit kept by {@code watchdog} (a test's, to choose when it fires). */
  static Answer send(
      Duration connectTimeout,
      HttpRequest request,
      int maxBodyBytes,
      Duration limit,
      ScheduledExecutorService watchdogs)
      throws IOException, InterruptedException {
    HttpURLConnection connection =
        (HttpURLConnection) request.uri().toURL().openConnection(Proxy.NO_PROXY);
    connection.setInstanceFollowRedirects(false);
    connection.setUseCaches(false);
    connection.setConnectTimeout(millis(min(connectTimeout, limit)));
    connection.setReadTimeout(millis(limit));
    connection.setRequestMethod(request.method());
    request
        .headers()
        .map()
        .forEach((k, vs) -> vs.forEach(v -> connection.addRequestProperty(k, v)));
    byte[] body = body(request);
    if (body != null) {
      connection.setDoOutput(true);
      connection.setFixedLengthStreamingMode(body.length);
    }
    Limit expired = new Limit(limit);
    ScheduledFuture<?> watchdog =
        watchdogs.schedule(
            () -> {
              expired.fired.set(true);
              // On a thread of its own: a disconnect() that waits on the connection's lock must
              // not hold up the watchdog of every other exchange.
              Thread close = new Thread(() -> disconnect(connection), "kvprov-http-close");
              close.setDaemon(true);
              close.start();
            },
            limit.toNanos(),
            TimeUnit.NANOSECONDS);
    boolean answered = false;
    try {
      try {
        connection.connect();
      } catch (SocketTimeoutException e) {
        throw new HttpConnectTimeoutException("connect timed out");
      }
      // A watchdog that fired before the connection existed closed nothing (a busy machine can
      // be that slow): past this point its disconnect reaches the socket, and before it, this.
      expired(expired);
      if (body != null) {
        try (OutputStream out = connection.getOutputStream()) {
          out.write(body);
        }
      }
      int status = connection.getResponseCode();
      answered = true;
      byte[] bytes = read(connection, status, maxBodyBytes + 1, expired);
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
      return new Answer(status, headers(connection), bytes);
    } catch (IOException | RuntimeException e) {
      // HttpURLConnection's disconnect() from the watchdog races the exchange it ends: the
      // exchange may then fail with a NullPointerException from inside the JDK, not an
      // IOException. Either way the time limit passed; any other such failure is the exchange's.
      if (expired.passed() || e instanceof SocketTimeoutException) {
        disconnect(connection);
        throw new HttpTimeoutException(
            (answered ? "no complete answer" : "no answer") + " within " + Deadline.seconds(limit));
      }
      if (e instanceof IOException io) {
        throw io;
      }
      throw new IOException("the HTTP exchange failed: " + e, e);
    } finally {
      watchdog.cancel(false);
    }
  }

  /**
   * An exchange's time limit: passed when the watchdog fired, or by the clock, which the reading
   * thread checks itself (a starved watchdog on a loaded machine must not stretch the limit).
   */
  private static final class Limit {
    final AtomicBoolean fired = new AtomicBoolean();
    private final long end;

    Limit(Duration limit) {
      this.end = System.nanoTime() + limit.toNanos();
    }

    boolean passed() {
      return fired.get() || System.nanoTime() - end >= 0;
    }
  }

  private static void expired(Limit limit) throws IOException {
    if (limit.passed()) {
      throw new IOException("the time limit passed");
    }
  }

  /**
   * The body, up to {@code cap} bytes; past it, the connection is closed unread. A body that keeps
   * coming after the limit passed is not read on, whether or not the watchdog's close reached it.
   */
  private static byte[] read(HttpURLConnection connection, int status, int cap, Limit expired)
      throws IOException {
    InputStream in;
    try {
      in = status >= 400 ? connection.getErrorStream() : connection.getInputStream();
    } catch (IOException e) {
      in = connection.getErrorStream();
    }
    if (in == null) {
      return new byte[0];
    }
    try (InputStream body = in) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      byte[] buffer = new byte[8192];
      int n;
      while (bytes.size() < cap
          && (n = body.read(buffer, 0, Math.min(buffer.length, cap - bytes.size()))) > 0) {
        bytes.write(buffer, 0, n);
        expired(expired);
      }
      if (bytes.size() >= cap) {
        disconnect(connection); // the rest is not wanted: not read, not kept alive
      }
      return bytes.toByteArray();
    }
  }

  /**
   * Closes the connection. The watchdog's close runs on a thread of its own and may race this one
   * (or the exchange's): the JDK then throws from inside ({@code NullPointerException} on a client
   * the other close already dropped). Closed either way, which is all that was asked.
   */
  private static void disconnect(HttpURLConnection connection) {
    try {
      connection.disconnect();
    } catch (RuntimeException racedAnotherClose) {
      // closed by the other side of the race
    }
  }

  private static HttpHeaders headers(HttpURLConnection connection) {
    Map<String, List<String>> fields = new LinkedHashMap<>();
    connection
        .getHeaderFields()
        .forEach(
            (name, values) -> {
              if (name != null) { // the status line
                fields.put(name, values);
              }
            });
    return HttpHeaders.of(fields, (name, value) -> true);
  }

  /** The request's body, collected from its publisher (ours publish at once), or null. */
  private static byte[] body(HttpRequest request) throws IOException {
    if (request.bodyPublisher().isEmpty()) {
      return null;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    boolean[] done = {false};
    request
        .bodyPublisher()
        .get()
        .subscribe(
            new Flow.Subscriber<ByteBuffer>() {
              @Override
              public void onSubscribe(Flow.Subscription subscription) {
                subscription.request(Long.MAX_VALUE);
              }

              @Override
              public void onNext(ByteBuffer item) {
                byte[] chunk = new byte[item.remaining()];
                item.get(chunk);
                bytes.writeBytes(chunk);
              }

              @Override
              public void onError(Throwable failure) {
                done[0] = true;
              }

              @Override
              public void onComplete() {
                done[0] = true;
              }
            });
    if (!done[0]) {
      throw new IOException("the request's body was not ready to send");
    }
    return bytes.toByteArray();
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  /** At least 1 ms: 0 would mean no limit at all. */
  private static int millis(Duration d) {
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, d.toMillis()));
  }

  /** An exchange's failure in plain words, for a span and a report. */
  public static String describe(Throwable failure) {
    return NetworkErrors.describe(failure);
  }
}
