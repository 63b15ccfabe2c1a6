package dev.kvprov.agent;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvprov.agent.config.ConfigLoader;
import dev.kvprov.agent.imds.ImdsClient;
import dev.kvprov.agent.logging.Logging;
import dev.kvprov.agent.ovf.OvfParser;
import dev.kvprov.kvp.PoolFile;
import java.util.List;
import java.util.Set;
import org.apache.commons.codec.digest.Sha2Crypt;

/**
 * A first boot's head start. Much of {@code kvprov provision}'s own time before Ready is the JVM
 * loading and initialising libraries, one after the other on the main thread: the TOML parser,
 * logback, the OpenTelemetry SDK, JNA, Jackson's deserializers, the XML reader, the password's
 * hash. From the first line of {@code main}, a second thread does the same for all but the
 * configuration (the main thread's first work), in the order the main thread needs them; the main
 * thread then finds them ready, or waits on the class being initialised rather than doing it again
 * (docs/performance-log.md has what it saves on JDK 17; on JDK 25 the AOT cache has done the
 * loading).
 *
 * <p>Each step works on built-in data of its own (no secret, nothing of the VM's), sends nothing,
 * prints nothing and writes no file but what JNA writes for itself anyway; the main thread does all
 * of it again for real, so a step that fails costs only its head start. Only with more than one
 * processor: on one, it would only add work; nor with {@code -Dkvprov.warmup=false} (for
 * measuring).
 */
final class Warmup {
  /** The commands that provision. */
  private static final Set<String> COMMANDS = Set.of("provision");

  private static final Set<String> HELP = Set.of("-h", "--help", "-V", "--version");

  /** A step: one library's set-up, on throwaway data. */
  private interface Action {
    void run() throws Exception;
  }

  private record Step(String name, Action action) {}

  /**
   * In the order {@code provision} needs them after its configuration, which the main thread reads
   * at once (its command line is read without picocli: {@link ProvisionLine}); the configuration's
   * step comes last, for the lines picocli reads.
   */
  private static final List<Step> STEPS =
      List.of(
          new Step("logging", Logging::warmUp),
          new Step("telemetry", Telemetry::warmUp),
          new Step("pool locks", PoolFile::flockAvailable),
          new Step("IMDS", ImdsClient::warmUp),
          new Step("media", OvfParser::warmUp),
          // The password step's hash (5,000 rounds of SHA-512): compiled by then, not interpreted.
          new Step("password hash", () -> Sha2Crypt.sha512Crypt("warm-up".getBytes(UTF_8))),
          new Step("configuration", ConfigLoader::warmUp));

  private Warmup() {}

  /** Starts the head start when {@code args} name a command that provisions (and not its help). */
  static void start(String[] args) {
    if (!wanted(args)
        || Runtime.getRuntime().availableProcessors() < 2
        || !Boolean.parseBoolean(System.getProperty("kvprov.warmup", "true"))) {
      return;
    }
    Thread thread = new Thread(Warmup::run, "kvprov-warm-up");
    thread.setDaemon(true); // never holds the process's exit
    thread.start();
  }

  /** Whether {@code args} run a command that provisions, and not just its help. */
  static boolean wanted(String[] args) {
    return args.length > 0
        && COMMANDS.contains(args[0])
        && List.of(args).stream().noneMatch(HELP::contains);
  }

  /** Every step, in turn. */
  static void run() {
    for (Step step : STEPS) {
      try {
        step.action().run();
        StartupPhases.mark("warm-up " + step.name());
      } catch (Throwable e) {
        // A head start only: the main thread does the same work and says what fails there. Nor
        // may an error of this thread reach the default handler, which would print it.
      }
    }
    try {
      StartupPhases.threadCpu();
    } catch (Throwable e) {
      // measuring only, as above
    }
  }
}
