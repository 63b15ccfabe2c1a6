package dev.kvprov.agent;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvprov.agent.config.AgentConfig;
import dev.kvprov.agent.os.SystemRoot;
import dev.kvprov.kvp.IoErrors;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.VmId;
import dev.kvprov.otel.KvpRecordFormat;
import dev.kvprov.otel.KvprovRecord;
import dev.kvprov.otel.KvprovSpanTree;
import dev.kvprov.otel.ProvisioningStatus;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kvprov status}: where provisioning is, for a unit that must wait for it ({@code kvprov
 * status --wait}) — the same answer, words and exit codes as {@code kvp status}, from kvprov's own
 * records in this VM's pool and its markers.
 */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description = {
      "Where provisioning is: not started, running, succeeded or failed.",
      "",
      "Running says the step it is at, failed says why; read from this VM's KVP",
      "pool and kvprov's markers.",
      "The same answer as `kvp status` (which also reads other agents' records).",
      "",
      "--wait follows the pool until there is a verdict, succeeded or failed."
    },
    footer = {
      "",
      "Exit status: 0 succeeded; 1 failed; 2 usage error; 3 the pool cannot be",
      "read; 4 no verdict yet (not started, or running).",
      "",
      "Examples:",
      "  kvprov status",
      "  kvprov status --wait --timeout 10m --json",
      "  kvprov status --root /mnt/rescued-disk"
    })
final class StatusCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin ConfigOptions options;

  @Option(names = "--json", description = "{status, reason, step, since, report, markers, pool}")
  boolean json;

  @Option(names = "--wait", description = "Follow the pool until there is a verdict.")
  boolean waitForVerdict;

  @Option(
      names = "--timeout",
      paramLabel = "SECONDS",
      description = "With --wait: give up after this many seconds (default: never).")
  Double timeoutSeconds;

  @Option(
      names = "--interval",
      paramLabel = "SECONDS",
      defaultValue = "0.5",
      description = "With --wait: how often to look, in seconds (default: ${DEFAULT-VALUE}).")
  double intervalSeconds;

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (!(intervalSeconds > 0) || Double.isInfinite(intervalSeconds)) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--interval must be a number of seconds above 0");
    }
    if (timeoutSeconds != null && (!waitForVerdict || !(timeoutSeconds >= 0))) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--timeout goes with --wait, and is a number of seconds");
    }
    AgentConfig config = options.loadOrFallback("status", err);
    SystemRoot root = new SystemRoot(options.root);
    Path pool = root.resolve(config.telemetry().kvpDirectory().toString()).resolve(".kvp_pool_1");
    long started = System.nanoTime();
    while (true) {
      ProvisioningStatus status;
      try {
        status = look(root, config, pool);
      } catch (IOException e) {
        err.println("kvprov status: " + pool + ": " + IoErrors.reason(e));
        return 3;
      }
      boolean timedOut =
          timeoutSeconds != null
              && System.nanoTime() - started >= (long) (timeoutSeconds * 1_000_000_000L);
      if (status.decided() || !waitForVerdict || timedOut) {
        print(status, pool, out);
        return status.exitCode();
      }
      Thread.sleep(Duration.ofNanos((long) (intervalSeconds * 1_000_000_000L)).toMillis());
    }
  }

  private static ProvisioningStatus look(SystemRoot root, AgentConfig config, Path pool)
      throws IOException {
    // On the running system, this VM's markers only (an image may carry its template VM's); on
    // a rescued disk, the disk's.
    List<String> markers =
        ProvisioningStatus.markers(
            root.resolve(config.stateDirectory().toString()),
            root.isLive() ? VmId.read(root.path()).value() : null);
    if (root.isLive() ? ProvisioningStatus.nothingThisBoot(pool) : !Files.exists(pool)) {
      return ProvisioningStatus.notStarted(markers);
    }
    List<KvpRecord> records = PoolFile.builder().file(pool).build().read().records();
    String report = null;
    for (KvpRecord r : records) {
      if (r.key().equals("PROVISIONING_REPORT")) {
        report = r.value();
      }
    }
    List<KvprovRecord> kvprov =
        KvpRecordFormat.decode(records).records().stream()
            .map(KvpRecordFormat.DecodedRecord::record)
            .toList();
    boolean alreadyProvisioned =
        kvprov.stream()
            .anyMatch(
                r ->
                    r.kind() == KvprovRecord.Kind.LOG
                        && r.field("Body")
                            .orElse("")
                            .contains(ProvisioningStatus.ALREADY_PROVISIONED));
    return ProvisioningStatus.of(report, open(kvprov), alreadyProvisioned, markers);
  }

  /** The spans that started and have not ended, by start time. */
  private static List<ProvisioningStatus.OpenSpan> open(List<KvprovRecord> records) {
    List<ProvisioningStatus.OpenSpan> open = new ArrayList<>();
    Deque<KvprovSpanTree.Span> todo =
        new ArrayDeque<>(KvprovSpanTree.roots(records, new ArrayList<>()));
    while (!todo.isEmpty()) {
      KvprovSpanTree.Span span = todo.pop();
      if (span.start() != null && span.end() == null) {
        span.start()
            .start()
            .ifPresent(
                at ->
                    open.add(new ProvisioningStatus.OpenSpan(span.start().name().orElse("?"), at)));
      }
      todo.addAll(span.children());
    }
    open.sort(Comparator.comparing(ProvisioningStatus.OpenSpan::start));
    return open;
  }

  private void print(ProvisioningStatus status, Path pool, PrintWriter out) {
    if (json) {
      try {
        out.println(new ObjectMapper().writeValueAsString(status.fields(pool.toString())));
      } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
        throw new IllegalStateException("plain values did not serialise", e);
      }
    } else {
      status.lines(pool.toString()).forEach(out::println);
    }
    out.flush();
  }
}
