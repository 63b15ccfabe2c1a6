package dev.kvprov.agent;

import dev.kvprov.agent.config.AgentConfig;
import dev.kvprov.agent.config.ConfigException;
import dev.kvprov.agent.imds.ImdsClient;
import dev.kvprov.agent.imds.ImdsException;
import dev.kvprov.agent.os.ProcessCommandRunner;
import dev.kvprov.agent.os.SystemRoot;
import dev.kvprov.agent.ovf.OvfEnvironment;
import dev.kvprov.agent.ovf.OvfException;
import dev.kvprov.agent.provision.PlatformAnswer;
import dev.kvprov.agent.provision.PlatformData;
import dev.kvprov.kvp.IoErrors;
import dev.kvprov.kvp.VmId;
import dev.kvprov.otel.KvpTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What the data commands ({@code metadata}, {@code render-ignition}) share: the configuration, IMDS
 * and the media read as {@code provision} reads them, in a span of the command's name that lands in
 * KVP like a run, the secrets masked from the moment they are read and wiped at the end.
 */
final class PlatformQuery {
  /** What a command does with the platform's data; returns its exit code. */
  interface Use {
    int apply(PlatformData data, Span span) throws IOException;
  }

  private PlatformQuery() {}

  static int run(
      String command, ConfigOptions options, MediaOptions media, PrintWriter err, Use use)
      throws InterruptedException {
    AgentConfig config;
    try {
      config = options.load();
    } catch (ConfigException e) {
      ConfigOptions.print(command, e.findings(), err::println);
      return ExitCode.USAGE.code;
    }
    ConfigOptions.print(command, config.warnings(), err::println);
    SystemRoot root = new SystemRoot(options.root);
    if (root.isLive() && !config.imdsConfigured()) {
      // Off Azure the built-in IMDS never answers: say so now, not after minutes of retries.
      Optional<String> notAzure = AzureHost.notAzure(Path.of("/sys"));
      if (notAzure.isPresent()) {
        err.println(
            "kvprov "
                + command
                + ": "
                + notAzure.get()
                + "; to try it elsewhere, point --config at an IMDS such as `kvprov simulate`'s");
        return ExitCode.USAGE.code;
      }
    }
    VmId vmId = VmId.read(options.root);
    try (KvpTelemetry telemetry = Telemetry.quiet(config, root, vmId, System.err)) {
      Span span = telemetry.tracer().spanBuilder(command).startSpan();
      OvfEnvironment env = null;
      try (Scope ignored = span.makeCurrent()) {
        PlatformAnswer answer =
            PlatformAnswer.read(
                new ImdsClient(config.imds(), telemetry.tracer()),
                config.mediaEnabled()
                    ? media.media(
                        config,
                        options.root,
                        new ProcessCommandRunner(telemetry.tracer()),
                        telemetry.tracer())
                    : null,
                warning -> err.println("kvprov " + command + ": warning: " + warning));
        env = answer.media();
        if (env != null) {
          env.maskIn(telemetry.redactor());
        }
        span.setAttribute("source", answer.source());
        return use.apply(answer.data(), span);
      } catch (ImdsException e) {
        return failed(command, span, err, e.getMessage(), ExitCode.IMDS);
      } catch (OvfException e) {
        return failed(command, span, err, e.getMessage(), ExitCode.MEDIA);
      } catch (IOException e) {
        // Only the command's own output can fail this way: a file it was told to write.
        span.setStatus(StatusCode.ERROR, IoErrors.describe(e));
        err.println("kvprov " + command + ": " + IoErrors.describe(e));
        return ExitCode.FAILED.code;
      } finally {
        if (env != null) {
          env.clearSecrets();
        }
        span.end();
      }
    }
  }

  private static int failed(
      String command, Span span, PrintWriter err, String message, ExitCode exit) {
    span.setStatus(StatusCode.ERROR, message);
    err.println("kvprov " + command + ": " + message);
    return exit.code;
  }
}
