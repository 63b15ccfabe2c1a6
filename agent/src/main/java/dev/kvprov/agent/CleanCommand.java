package dev.kvprov.agent;

import dev.kvprov.agent.config.AgentConfig;
import dev.kvprov.agent.config.ConfigException;
import dev.kvprov.agent.os.SystemRoot;
import dev.kvprov.agent.state.KeptMedia;
import dev.kvprov.agent.state.ProvisioningState;
import dev.kvprov.kvp.IoErrors;
import dev.kvprov.kvp.PoolArchive;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.StaleClearResult;
import dev.kvprov.kvp.VmId;
import dev.kvprov.otel.KvpTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kvprov clean}: forgets that this image was provisioned, so that it can be captured and
 * provisioned again (what {@code cloud-init clean} and {@code azure-init clean} do).
 */
@Command(
    name = "clean",
    mixinStandardHelpOptions = true,
    description = {
      "Forget that this system was provisioned (before capturing an image).",
      "",
      "An image made from it then provisions again on its first boot. Removes the",
      "markers (<vm id>.provisioned, <vm id>.ready) and the VM id remembered from",
      "IMDS where there is no SMBIOS (vm-id) from the state directory, and",
      "azure-init's (<vm id>.provisioned in /var/lib/azure-init), in a",
      "span 'clean' in KVP. --logs also removes kvprov's archives of earlier boots'",
      "pools, the late-records log, the kept ovf-env.xml, custom_data and user_data,",
      "and empties the KVP pool itself (no trace is left there: the captured image",
      "must not carry this VM's records into the VMs made from it). Users, keys and",
      "files made by provisioning stay: deprovisioning them is the image builder's",
      "choice."
    },
    footer = {
      "",
      "",
      "Examples:",
      "  kvprov clean",
      "  kvprov clean --logs --dry-run",
      "  kvprov clean --logs --root /mnt/image"
    })
final class CleanCommand implements Callable<Integer> {
  /** What provisioning leaves in the state directory besides the markers, for {@code --logs}. */
  private static final List<String> LOGS_IN_STATE =
      List.of("late-records.log", KeptMedia.OVF_ENV, KeptMedia.CUSTOM_DATA, KeptMedia.USER_DATA);

  /** A marker's name: a VM id (or "unknown", when none could be read) and its kind. */
  private static final Pattern MARKER =
      Pattern.compile("([0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}|unknown)\\.(provisioned|ready)");

  /** azure-init's marker: its VM id (all zeros when it could read none) and ".provisioned". */
  private static final Pattern AZURE_INIT_MARKER =
      Pattern.compile("[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}\\.provisioned");

  /** The pools kvprov archives: pool 1, and the others should a reader ever have put them there. */
  private static final int POOLS = 4;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin ConfigOptions options;

  @Option(
      names = "--logs",
      description = "Also remove the archives and logs, and empty the KVP pool.")
  boolean logs;

  @Option(names = "--dry-run", description = "Only print what would be removed.")
  boolean dryRun;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    AgentConfig config;
    try {
      config = options.load();
    } catch (ConfigException e) {
      ConfigOptions.print("clean", e.findings(), err::println);
      return ExitCode.USAGE.code;
    }
    SystemRoot root = new SystemRoot(options.root);
    Path pool = root.resolve(config.telemetry().kvpDirectory().toString()).resolve(".kvp_pool_1");
    List<Path> doomed;
    try {
      doomed = doomed(config, root);
    } catch (IOException e) {
      err.println("kvprov clean: " + IoErrors.describe(e));
      return ExitCode.FAILED.code;
    }
    boolean emptyPool = logs && Files.isRegularFile(pool, LinkOption.NOFOLLOW_LINKS);
    if (doomed.isEmpty() && !emptyPool) {
      out.println("nothing to clean");
      return ExitCode.OK.code;
    }
    if (dryRun) {
      doomed.forEach(p -> out.println("would remove " + p));
      if (emptyPool) {
        out.println("would empty " + pool);
      }
      return ExitCode.OK.code;
    }
    if (logs) {
      // Nothing is traced: the pool is emptied last, and an archive of it must not be made.
      int failures = remove(doomed, out, err);
      try {
        StaleClearResult cleared =
            PoolFile.builder().file(pool).build().clear(); // no archive configured: none made
        if (cleared.outcome() == StaleClearResult.Outcome.CLEARED) {
          out.println("emptied " + pool + " (" + cleared.recordsCleared() + " records)");
        }
      } catch (IOException e) {
        failures++;
        err.println("kvprov clean: " + pool + ": " + IoErrors.reason(e));
      }
      return (failures == 0 ? ExitCode.OK : ExitCode.FAILED).code;
    }
    try (KvpTelemetry telemetry =
        Telemetry.quiet(config, root, VmId.read(options.root), System.err)) {
      Span span =
          telemetry
              .tracer()
              .spanBuilder("clean")
              .setAttribute("files", (long) doomed.size())
              .startSpan();
      try (Scope ignored = span.makeCurrent()) {
        int failures = remove(doomed, out, err);
        if (failures > 0) {
          span.setStatus(StatusCode.ERROR, failures + " file(s) could not be removed");
        }
        return (failures == 0 ? ExitCode.OK : ExitCode.FAILED).code;
      } finally {
        span.end();
      }
    }
  }

  private static int remove(List<Path> doomed, PrintWriter out, PrintWriter err) {
    int failures = 0;
    for (Path file : doomed) {
      try {
        Files.deleteIfExists(file);
        out.println("removed " + file);
      } catch (IOException e) {
        failures++;
        err.println("kvprov clean: " + file + ": " + IoErrors.reason(e));
      }
    }
    return failures;
  }

  /**
   * The files to remove, by their names only (a link is removed itself, never followed): markers,
   * and with {@code --logs} kvprov's own logs and archive copies — never another file that happens
   * to share their directories.
   */
  private List<Path> doomed(AgentConfig config, SystemRoot root) throws IOException {
    List<Path> files = new ArrayList<>();
    Path state = root.resolve(config.stateDirectory().toString());
    files.addAll(
        named(
            state,
            name ->
                MARKER.matcher(name).matches()
                    || name.equals(ProvisioningState.REMEMBERED_ID)
                    || logs && LOGS_IN_STATE.contains(name)));
    // azure-init's markers too, as its own clean removes them: else the next run would take this
    // system for one azure-init provisioned, and only report Ready.
    Path azureInit = root.resolve(config.azureInitDataDirectory().toString());
    if (!azureInit.equals(state)) {
      files.addAll(named(azureInit, name -> AZURE_INIT_MARKER.matcher(name).matches()));
    }
    Path archive = root.resolve(config.telemetry().archiveDirectory().toString());
    if (logs && Files.isDirectory(archive, LinkOption.NOFOLLOW_LINKS)) {
      for (int pool = 0; pool < POOLS; pool++) {
        files.addAll(PoolArchive.copies(archive, pool));
      }
    }
    files.sort(null);
    return files;
  }

  /** The entries of {@code directory} (if it is one, not a link) whose names {@code wanted}. */
  private static List<Path> named(Path directory, Predicate<String> wanted) throws IOException {
    List<Path> files = new ArrayList<>();
    if (Files.isDirectory(directory, LinkOption.NOFOLLOW_LINKS)) {
      try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
        for (Path entry : entries) {
          if (wanted.test(entry.getFileName().toString())) {
            files.add(entry);
          }
        }
      }
    }
    return files;
  }
}
