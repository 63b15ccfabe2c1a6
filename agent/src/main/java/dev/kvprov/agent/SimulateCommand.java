package dev.kvprov.agent;

import dev.kvprov.agent.sim.AzureSimulator;
import dev.kvprov.agent.sim.Scenario;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvprov simulate}: a small Azure on loopback, in the foreground. */
@Command(
    name = "simulate",
    mixinStandardHelpOptions = true,
    description = {
      "Run a simulated IMDS and wireserver on loopback.",
      "",
      "Run a simulated IMDS and wireserver on loopback until interrupted, printing",
      "their URLs, a configuration snippet that points kvprov at them, and every",
      "health report received."
    },
    footer = {
      "",
      "Examples:",
      "  kvprov simulate",
      "  kvprov simulate --scenario flaky-imds --failures 5 > /tmp/sim.txt &",
      "  kvprov simulate --scenario retry-after --retry-after 100000 --failures 1"
    })
final class SimulateCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--scenario",
      defaultValue = "ok",
      paramLabel = "NAME",
      completionCandidates = Scenario.Names.class,
      description = {
        "How the platform behaves (default: ${DEFAULT-VALUE}), one of:",
        "${COMPLETION-CANDIDATES}"
      })
  String scenario;

  @Option(
      names = "--failures",
      paramLabel = "N",
      defaultValue = "-1",
      description = "Failures before success, for the flaky scenarios.")
  int failures;

  @Option(
      names = "--imds-delay-ms",
      paramLabel = "MS",
      defaultValue = "3000",
      description = "IMDS latency for slow-imds (default: ${DEFAULT-VALUE}).")
  long delay;

  @Option(
      names = "--retry-after",
      paramLabel = "VALUE",
      defaultValue = "1",
      description =
          "Retry-After of retry-after: seconds or an HTTP date (default: ${DEFAULT-VALUE}).")
  String retryAfter;

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    Scenario chosen;
    try {
      chosen = Scenario.parse(scenario);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    AzureSimulator simulator =
        AzureSimulator.builder()
            .scenario(chosen)
            .failures(failures)
            .imdsDelayMillis(delay)
            .retryAfter(retryAfter)
            .log(
                line -> {
                  out.println(line);
                  out.flush();
                })
            .start();
    out.println("scenario:   " + chosen.cliName() + " (" + chosen.description() + ")");
    out.println("IMDS:       " + simulator.imdsEndpoint());
    out.println("wireserver: " + simulator.wireserverEndpoint());
    if (chosen == Scenario.CERTIFICATE_KEY) {
      out.println(
          "certificate: "
              + simulator.certificateThumbprint()
              + " (the Fingerprint of a media PublicKey with no Value)");
    }
    out.println();
    out.println("# point kvprov at it, e.g. with --config sim.toml:");
    out.print(simulator.configSnippet());
    out.println();
    out.flush();
    CountDownLatch stop = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  simulator.close();
                  stop.countDown();
                }));
    stop.await();
    return ExitCode.OK.code;
  }
}
