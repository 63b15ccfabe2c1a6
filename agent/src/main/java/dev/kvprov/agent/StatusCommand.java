package dev.kvprov.agent;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvprov.agent.config.AgentConfig;
import dev.kvprov.agent.os.SystemRoot;
import dev.kvprov.agent.state.ProvisioningState;
import dev.kvprov.kvp.IoErrors;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.VmId;
import dev.kvprov.otel.HumanDuration;
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
import java.util.concurrent.TimeUnit;
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
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description = "With --wait: give up after this long (200ms, 30s, 5m, 1h; default: never).")
  Duration timeout;

  @Option(
      names = "--interval",
      paramLabel = "DURATION",
      defaultValue = "500ms",
      converter = DurationConverter.class,
      description = "With --wait: how often to look (default: ${DEFAULT-VALUE}).")
  Duration interval;

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (interval.isZero()) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--interval must be longer than 0");
    }
    if (timeout != null && !waitForVerdict) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--timeout goes with --wait");
    }
    SystemRoot root = new SystemRoot(options.root);
    if (!Files.isDirectory(root.path())) {
      err.println("kvprov status: " + root.path() + ": no such directory");
      return ExitCode.IO.code;
    }
    AgentConfig config = options.loadOrFallback("status", err);
    Path pool = root.resolve(config.telemetry().kvpDirectory().toString()).resolve(".kvp_pool_1");
    long started = System.nanoTime();
    while (true) {
      ProvisioningStatus status;
      try {
        status = look(root, config, pool);
      } catch (IOException e) {
        err.println("kvprov status: " + pool + ": " + IoErrors.reason(e));
        return ExitCode.IO.code;
      }
      long elapsed = System.nanoTime() - started;
      boolean timedOut = timeout != null && elapsed >= timeout.toNanos();
      if (status.decided() || !waitForVerdict || timedOut) {
        print(status, pool, out);
        return status.exitCode();
      }
      long wait = interval.toNanos();
      if (timeout != null) {
        wait = Math.min(wait, Math.max(1, timeout.toNanos() - elapsed));
      }
      TimeUnit.NANOSECONDS.sleep(wait);
    }
  }

  /**
   * The same durations as {@code kvp status}'s: {@code 200ms}, {@code 30s}, {@code 5m}, {@code 1h}.
   */
  static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String text) {
      try {
        return HumanDuration.parse(text);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }

  private static ProvisioningStatus look(SystemRoot root, AgentConfig config, Path pool)
      throws IOException {
    // On the running system, this VM's markers only (an image may carry its template VM's); on
    // a rescued disk, the disk's.
    // Without SMBIOS, the id IMDS gave, as provision remembered it.
    Path state = root.resolve(config.stateDirectory().toString());
    List<String> markers =
        ProvisioningStatus.markers(
            state,
            root.isLive()
                ? new ProvisioningState(state).vmId(VmId.read(root.path())).value()
                : null);
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
                        && r.field(KvpRecordFormat.BODY)
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
