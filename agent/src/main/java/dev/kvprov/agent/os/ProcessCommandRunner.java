package dev.kvprov.agent.os;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs commands as real processes, each as a span named {@code exec <program>} with its arguments,
 * exit status and time. A program given by its path (an image's own, under {@code --root}) is named
 * by its file name: the span's name says what ran, its arguments where from. Output is capped so
 * that a chatty command cannot fill memory.
 */
public final class ProcessCommandRunner implements CommandRunner {
  private static final int MAX_OUTPUT = 64 * 1024;

  private final Tracer tracer;

  public ProcessCommandRunner(Tracer tracer) {
    this.tracer = tracer;
  }

  @Override
  public CommandResult run(List<String> argv, byte[] stdin, Duration timeout)
      throws IOException, InterruptedException {
    return exec(argv, stdin, timeout, false);
  }

  /**
   * As {@link #run}, but a status the command answers with is not a failure: the span ends OK, with
   * {@code process.answer} {@code yes} (0) or {@code no}. Only a command that could not answer
   * fails its span: not run (126, 127), killed by a signal (128 + n) or on timeout.
   */
  @Override
  public CommandResult ask(List<String> argv, Duration timeout)
      throws IOException, InterruptedException {
    return exec(argv, new byte[0], timeout, true);
  }

  /** {@code /tmp/x/root/usr/bin/azure-proxy-agent} is {@code azure-proxy-agent}. */
  static String program(String argv0) {
    int slash = argv0.lastIndexOf('/');
    return slash < 0 || slash == argv0.length() - 1 ? argv0 : argv0.substring(slash + 1);
  }

  private CommandResult exec(List<String> argv, byte[] stdin, Duration timeout, boolean question)
      throws IOException, InterruptedException {
    Span span =
        tracer
            .spanBuilder("exec " + program(argv.get(0)))
            .setAttribute(AttributeKey.stringArrayKey("process.command_args"), shown(argv))
            .startSpan();
    long started = System.nanoTime();
    try {
      Process process = new ProcessBuilder(argv).start();
      CompletableFuture<String> out = drain(process.getInputStream());
      CompletableFuture<String> err = drain(process.getErrorStream());
      try (OutputStream in = process.getOutputStream()) {
        in.write(stdin);
      } catch (IOException e) {
        // The command did not read its input: its exit status will say what happened.
      }
      int exit;
      if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        exit = process.exitValue();
      } else {
        process.destroyForcibly().waitFor();
        exit = -1;
      }
      CommandResult result =
          new CommandResult(
              exit,
              out.join(),
              err.join() + (exit == -1 ? "\n(killed after " + timeout + ")" : ""),
              Duration.ofNanos(System.nanoTime() - started));
      span.setAttribute("process.exit.code", (long) exit);
      if (question && CommandResult.isAnswer(exit)) {
        span.setAttribute("process.answer", exit == 0 ? "yes" : "no");
      } else if (!result.succeeded()) {
        span.setStatus(StatusCode.ERROR, result.summary());
      }
      return result;
    } catch (IOException e) {
      span.setStatus(StatusCode.ERROR, e.toString());
      throw e;
    } finally {
      span.end();
    }
  }

  /**
   * The arguments as telemetry may show them: a program's secret options' values ({@code usermod
   * -p}) and any password hash are replaced; everything else is shown as run.
   */
  public static List<String> shown(List<String> argv) {
    return SecretArguments.shown(argv);
  }

  private static CompletableFuture<String> drain(InputStream stream) {
    return CompletableFuture.supplyAsync(
        () -> {
          try (InputStream in = stream) {
            byte[] kept = in.readNBytes(MAX_OUTPUT);
            in.transferTo(OutputStream.nullOutputStream());
            return new String(kept, UTF_8);
          } catch (IOException e) {
            return "";
          }
        });
  }
}
