package dev.kvprov.inspect.cli;

import dev.kvprov.inspect.cli.ItemLedger.Sighting;
import dev.kvprov.inspect.cli.ItemLedger.State;
import dev.kvprov.inspect.pool.PoolSource;
import dev.kvprov.inspect.render.ItemLine;
import dev.kvprov.inspect.render.Style;
import dev.kvprov.inspect.writers.Events;
import dev.kvprov.inspect.writers.Item;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvp watch}: a live pool's items as they are written, each once. */
@Command(
    name = "watch",
    mixinStandardHelpOptions = true,
    description = {
      "Follow a live pool: each item once, as it is written.",
      "",
      "Prints the items already in the pool (not with --new-only), then every new",
      "item once, chunks put back together, as kvp list does (--json: JSON Lines).",
      "Survives the boot-time clear (-- pool cleared -- on stderr) and whole-file",
      "rewrites by hv_kvp_daemon; waits for a pool that does not exist yet. Runs",
      "until Ctrl-C, --exit-after or --timeout."
    },
    footer = {
      "",
      "",
      "Examples:",
      "  kvp watch",
      "  kvp watch --new-only --writer cloud-init --json",
      "  kvp watch --grep PROVISIONING_REPORT --exit-after 1 --timeout 30m"
    })
final class WatchCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin PoolOptions input;

  @Option(
      names = "--wide",
      description = "Every item on one line, never wrapped (what a pipe or a file gets anyway).")
  boolean wide;

  @Option(names = "--json", description = "One JSON object per item, as kvp list --json.")
  boolean json;

  @CommandLine.Mixin ItemFilter filter;

  @Option(
      names = "--level",
      paramLabel = "L",
      description =
          "Only items at level L or above: DEBUG, INFO, WARN, ERROR, as kvp list --level"
              + " (items without a level are left out).")
  String level;

  @Option(
      names = "--new-only",
      description = "Do not print the items already in the pool when the watch begins.")
  boolean newOnly;

  @Option(
      names = "--interval",
      paramLabel = "D",
      defaultValue = "200ms",
      converter = DurationConverter.class,
      description = "How often to look at the pool (default: ${DEFAULT-VALUE}).")
  Duration interval;

  @Option(names = "--exit-after", paramLabel = "N", description = "Stop after printing N items.")
  Integer exitAfter;

  @Option(
      names = "--timeout",
      paramLabel = "D",
      converter = DurationConverter.class,
      description = "Stop after D, e.g. 90s, 10m, 1h (a bare number is seconds).")
  Duration timeout;

  @Override
  public Integer call() {
    CommandLine cli = spec.commandLine();
    if (input.fromStdin() || input.hostExport()) {
      throw new CommandLine.ParameterException(
          cli, "it follows a pool file; stdin and host exports cannot be watched");
    }
    if (interval.isZero()) {
      throw new CommandLine.ParameterException(cli, "--interval must be longer than 0");
    }
    if (exitAfter != null && exitAfter < 1) {
      throw new CommandLine.ParameterException(cli, "--exit-after must be at least 1");
    }
    if (timeout != null && timeout.isZero()) {
      throw new CommandLine.ParameterException(cli, "--timeout must be longer than 0");
    }
    if (level != null && !ListCommand.LEVELS.contains(level.toUpperCase(Locale.ROOT))) {
      throw new CommandLine.ParameterException(
          cli, "--level is one of DEBUG, INFO, WARN, ERROR; not " + level);
    }
    CountDownLatch stop = new CountDownLatch(1);
    Runnable restore = CtrlC.onInterrupt(stop::countDown);
    try {
      return follow(stop);
    } finally {
      restore.run();
    }
  }

  private int follow(CountDownLatch stop) {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Path path = input.path();
    List<String> waysOut =
        input.source != null && input.source.root != null
            ? PoolSource.waysOut(input.source.root, input.pool)
            : List.of();
    if (!waysOut.isEmpty()) {
      waysOut.forEach(why -> err.println("kvp watch: " + why));
      return ExitCode.IO.code;
    }
    LivePool pool = new LivePool(path);
    ItemLedger ledger = new ItemLedger();
    long started = System.nanoTime();
    boolean first = true;
    boolean absenceNoted = false;
    int printed = 0;
    while (true) {
      Optional<List<Sighting>> sightings;
      try {
        sightings = pool.look(ledger.waiting());
      } catch (IOException e) {
        err.println("kvp watch: " + path + ": " + PoolSource.why(e));
        err.flush();
        return ExitCode.IO.code;
      }
      if (pool.exists()) {
        absenceNoted = false;
      } else if (!absenceNoted) {
        err.println("kvp watch: no pool at " + path + " yet; waiting for it");
        err.flush();
        absenceNoted = true;
      }
      if (sightings.isPresent() && first && newOnly) {
        ledger.baseline(sightings.get());
        if (pool.exists()) {
          long there = sightings.get().stream().filter(s -> s.state() != State.INCOMPLETE).count();
          err.println("kvp watch: " + there + " items already in " + path + "; printing new ones");
          err.flush();
        }
      } else if (sightings.isPresent()) {
        int limit = exitAfter == null ? Integer.MAX_VALUE : exitAfter - printed;
        printed += print(ledger.next(sightings.get()), limit);
      }
      first = first && sightings.isEmpty();
      if (exitAfter != null && printed >= exitAfter) {
        return ExitCode.OK.code;
      }
      // picocli's standard output goes through System.out, whose PrintStream keeps write errors
      // to itself: ask both, so that `kvp watch | head -3` ends once head has gone.
      if (out.checkError() || System.out.checkError()) {
        return ExitCode.OK.code;
      }
      long wait = interval.toNanos();
      if (timeout != null) {
        long left = timeout.toNanos() - (System.nanoTime() - started);
        if (left <= 0) {
          if (exitAfter == null) {
            return ExitCode.OK.code;
          }
          err.println(
              "kvp watch: --timeout ran out with "
                  + printed
                  + " of "
                  + exitAfter
                  + " items printed");
          err.flush();
          return ExitCode.FOUND.code;
        }
        wait = Math.min(wait, left);
      }
      try {
        if (stop.await(wait, TimeUnit.NANOSECONDS)) {
          return ExitCode.OK.code;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return ExitCode.OK.code;
      }
    }
  }

  /** Prints the batch: the clear marker, then up to {@code limit} items that pass the filters. */
  private int print(ItemLedger.Batch batch, int limit) {
    if (batch.cleared()) {
      spec.commandLine().getErr().println("-- pool cleared --");
      spec.commandLine().getErr().flush();
    }
    PrintWriter out = spec.commandLine().getOut();
    Style style = Style.forStdout();
    int printed = 0;
    for (Item item : batch.appeared()) {
      if (printed == limit) {
        break;
      }
      if (filter.accepts(item) && atLevel(item)) {
        if (json) {
          out.println(ListCommand.asJson(item));
        } else {
          ItemLine.lines(item, Events.of(item), Style.columns(wide), style).forEach(out::println);
        }
        printed++;
      }
    }
    out.flush();
    return printed;
  }

  /** Whether the item is at {@code --level} or above, as {@code kvp list --level} decides it. */
  private boolean atLevel(Item item) {
    if (level == null) {
      return true;
    }
    String itemLevel = Events.of(item).map(dev.kvprov.inspect.writers.Event::severity).orElse(null);
    return itemLevel != null
        && ListCommand.LEVELS.indexOf(itemLevel)
            >= ListCommand.LEVELS.indexOf(level.toUpperCase(Locale.ROOT));
  }

  /** {@code 200ms}, {@code 30s}, {@code 5m}, {@code 1h}; a bare number is seconds. */
  static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String text) {
      try {
        return dev.kvprov.otel.HumanDuration.parse(text);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }
}
