package dev.kvprov.agent.http;

import dev.kvprov.otel.NetworkErrors;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One HTTP request and its whole answer, headers and body, within one time limit.
 *
 * <p>The JDK client's request timeout ends when the headers arrive: a server that then stalls, or
 * sends its body a byte at a time, would hold a boot for ever. Here the limit covers the body too,
 * and the body is read only up to a size cap: a longer one is cut, and the connection closed.
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

  private static final Duration CLIENT_TIMEOUT_LAG = Duration.ofSeconds(1);

  private BoundedExchange() {}

  /**
   * Sends {@code request} and waits at most {@code limit} for the whole answer.
   *
   * @param maxBodyBytes the body's cap: one byte more is kept to tell a longer body
   * @throws HttpTimeoutException when the answer is not complete within {@code limit}
   * @throws IOException when the exchange fails
   */
  public static Answer send(HttpClient http, HttpRequest request, int maxBodyBytes, Duration limit)
      throws IOException, InterruptedException {
    AtomicReference<CappedBody> body = new AtomicReference<>();
    // The client's own timeout only backs this one up (it ends at the headers): a little later,
    // so that the limit that ends an exchange is always this one, with its message.
    HttpRequest backedUp =
        HttpRequest.newBuilder(request, (name, value) -> true)
            .timeout(limit.plus(CLIENT_TIMEOUT_LAG))
            .build();
    CompletableFuture<HttpResponse<byte[]>> answer =
        http.sendAsync(
            backedUp,
            info -> {
              CappedBody subscriber = new CappedBody(maxBodyBytes + 1);
              body.set(subscriber);
              return subscriber;
            });
    try {
      HttpResponse<byte[]> response = answer.get(limit.toNanos(), TimeUnit.NANOSECONDS);
      return new Answer(response.statusCode(), response.headers(), response.body());
    } catch (TimeoutException e) {
      abandon(answer, body.get());
      throw new HttpTimeoutException(
          (body.get() == null ? "no answer" : "no complete answer")
              + " within "
              + Deadline.seconds(limit));
    } catch (InterruptedException e) {
      abandon(answer, body.get());
      throw e;
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      throw new IOException(describe(cause), cause);
    }
  }

  /** Closes the connection of an exchange given up on, so no thread or socket waits on. */
  private static void abandon(CompletableFuture<?> answer, CappedBody body) {
    answer.cancel(true);
    if (body != null) {
      body.cancel();
    }
  }

  /** An exchange's failure in plain words, for a span and a report. */
  public static String describe(Throwable failure) {
    return NetworkErrors.describe(failure);
  }

  /** Collects a body up to a cap; past it, stops reading and closes the connection. */
  private static final class CappedBody implements HttpResponse.BodySubscriber<byte[]> {
    private final int cap;
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final CompletableFuture<byte[]> result = new CompletableFuture<>();
    private volatile Flow.Subscription subscription;

    CappedBody(int cap) {
      this.cap = cap;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      this.subscription = subscription;
      subscription.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
      for (ByteBuffer item : items) {
        int take = Math.min(item.remaining(), cap - bytes.size());
        byte[] chunk = new byte[take];
        item.get(chunk);
        bytes.writeBytes(chunk);
      }
      if (bytes.size() >= cap && result.complete(bytes.toByteArray())) {
        subscription.cancel();
      }
    }

    @Override
    public void onError(Throwable failure) {
      result.completeExceptionally(failure);
    }

    @Override
    public void onComplete() {
      result.complete(bytes.toByteArray());
    }

    @Override
    public CompletionStage<byte[]> getBody() {
      return result;
    }

    void cancel() {
      Flow.Subscription s = subscription;
      if (s != null) {
        s.cancel();
      }
      result.cancel(true);
    }
  }
}
