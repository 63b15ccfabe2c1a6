package dev.kvprov.inspect.cli;

import dev.kvprov.inspect.bundle.BundleConfig;
import dev.kvprov.inspect.bundle.BundleFiles;
import dev.kvprov.inspect.bundle.BundleInput;
import dev.kvprov.inspect.bundle.BundleJournal;
import dev.kvprov.inspect.bundle.BundleManifest;
import dev.kvprov.inspect.bundle.BundleMarkers;
import dev.kvprov.inspect.bundle.BundlePool;
import dev.kvprov.inspect.bundle.BundlePoolCopy;
import dev.kvprov.inspect.bundle.BundlePools;
import dev.kvprov.inspect.bundle.BundleUsers;
import dev.kvprov.inspect.bundle.BundleView;
import dev.kvprov.inspect.pool.PoolOptions;
import dev.kvprov.inspect.pool.PoolReading;
import dev.kvprov.inspect.pool.PoolSource;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvp bundle}: everything a support ticket needs, in one {@code .tar.gz}. */
@Command(
    name = "bundle",
    mixinStandardHelpOptions = true,
    description = {
      "One .tar.gz for a support ticket, like cloud-init collect-logs.",
      "",
      "It holds the pools and kvprov's archives of earlier boots (the newest 5 of",
      "each pool; --all-archives for every one), what kvp report, tree, list, doctor",
      "and timeline --html say of them, kvprov's configuration files (secret-looking",
      "values masked, in comments too), its markers, and the journal of",
      "kvprov.service when journalctl is there. Never the provisioning media, custom",
      "data or anything kvprov keeps secret. Prints what it put in, what it left",
      "out, and what it could not read and why. Everything is streamed: a 256 MiB",
      "heap is enough whatever the input.",
      "",
      "--redact-users replaces user names with stable hashes, for sharing outside the",
      "company: the image's accounts (uid 1000 and up) and every name the records",
      "give (span attributes, refused names, IMDS and media names, reports), so a",
      "run that failed before the user was made leaks none."
    },
    footer = {
      "",
      "",
      "Examples:",
      "  sudo kvp bundle",
      "  kvp bundle --root /mnt/rescued-disk -o ticket-4711.tar.gz --redact-users"
    })
final class BundleCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin PoolOptions input;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "FILE",
      description = "Where to write it (default: kvp-bundle-<UTC time>.tar.gz here).")
  Path output;

  @Option(names = "--redact-users", description = "Replace user names with stable hashes.")
  boolean redactUsers;

  @Option(
      names = "--all-archives",
      description =
          "Every archived boot, not only the newest "
              + BundlePools.NEWEST_ARCHIVES
              + " of each pool.")
  boolean allArchives;

  @Override
  public Integer call() {
    if (input.fromStdin()) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "it bundles files; give it the pool, not stdin");
    }
    BundleInput what = bundleInput();
    BundleManifest manifest = new BundleManifest();
    BundlePools pools = BundlePools.of(what, allArchives, manifest);
    if (what.underRoot() && pools.found() == 0) {
      Path root = what.root();
      spec.commandLine()
          .getErr()
          .println(
              "kvp bundle: nothing to bundle under "
                  + root
                  + ": no pool in "
                  + root.resolve("var/lib/hyperv")
                  + " (.kvp_pool_0 to .kvp_pool_3) and "
                  + PoolSource.unreadableArchives(root)
                      .orElse(
                          "no archive in "
                              + root.resolve("var/lib/kvprov/kvp-archive")
                              + "; is "
                              + root
                              + " a mounted OS disk?"));
      return ExitCode.IO.code;
    }
    Path target = target();
    // every name is learned before anything is written: one user, one hash, in every file
    BundleUsers users =
        redactUsers ? BundleUsers.learned(what, pools.taken(), manifest) : BundleUsers.kept();
    PrintWriter out = spec.commandLine().getOut();
    int written;
    try (BundleFiles files = BundleFiles.to(target, manifest)) {
      parts(what, pools, users, files);
      manifest.lines().forEach(out::println);
      files.finish();
      written = files.files();
    } catch (IOException e) {
      spec.commandLine()
          .getErr()
          .println("kvp bundle: cannot write " + target + ": " + PoolReading.why(e));
      return ExitCode.IO.code;
    }
    out.println("wrote " + target + " (" + written + " files)");
    return ExitCode.OK.code;
  }

  /** The parts, in the order the manifest says them: the pools first, the machine's state last. */
  private static void parts(
      BundleInput what, BundlePools pools, BundleUsers users, BundleFiles files)
      throws IOException {
    for (BundlePool pool : pools.taken()) {
      BundlePoolCopy.copy(pool, what, users, files);
    }
    new BundleKvpFiles(BundleView.of(what, pools, files), users, files).add();
    if (what.given()) {
      // a file or an export copied from a VM: this machine's state is not that VM's
      files.manifest().add("not taken: configuration, markers and journal (the input is a file)");
    } else {
      BundleConfig.add(what.root(), users, files);
      BundleMarkers.add(what.root(), users, files);
      BundleJournal.installed().add(what, users, files);
    }
  }

  /** What the options name, as the parts ask it. */
  private BundleInput bundleInput() {
    PoolOptions.Source source = input.source;
    Path slash = Path.of("/");
    if (input.hostExport()) {
      return new BundleInput(
          BundleInput.Kind.HOST_EXPORT, slash, input.dir, source.hostXml, input.pool);
    }
    if (source != null && source.file != null) {
      return new BundleInput(BundleInput.Kind.FILE, slash, input.dir, source.file, input.pool);
    }
    if (source != null && source.root != null) {
      return new BundleInput(BundleInput.Kind.ROOT, source.root, input.dir, "", input.pool);
    }
    return new BundleInput(BundleInput.Kind.LIVE, slash, input.dir, "", input.pool);
  }

  /** {@code -o FILE}, or the default name in {@code -o DIR} or here. */
  private Path target() {
    if (output != null && !Files.isDirectory(output)) {
      return output;
    }
    return (output != null ? output : Path.of(""))
        .resolve(
            "kvp-bundle-"
                + DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'", Locale.ROOT)
                    .withZone(ZoneOffset.UTC)
                    .format(Instant.now())
                + ".tar.gz");
  }
}
