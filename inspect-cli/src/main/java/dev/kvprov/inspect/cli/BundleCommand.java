package dev.kvprov.inspect.cli;

import dev.kvprov.inspect.bundle.Bundle;
import dev.kvprov.inspect.bundle.BundleInput;
import dev.kvprov.inspect.pool.PoolSource;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
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
          "Every archived boot, not only the newest " + Bundle.NEWEST_ARCHIVES + " of each pool.")
  boolean allArchives;

  @Override
  public Integer call() {
    if (input.fromStdin()) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "it bundles files; give it the pool, not stdin");
    }
    Bundle bundle = Bundle.of(bundleInput(), allArchives);
    Optional<String> nothing = bundle.nothing();
    if (nothing.isPresent()) {
      spec.commandLine().getErr().println("kvp bundle: " + nothing.get());
      return ExitCode.IO.code;
    }
    Path target = target();
    PrintWriter out = spec.commandLine().getOut();
    int written;
    try {
      written = bundle.write(target, redactUsers, BundleCommand::kvp, out);
    } catch (IOException e) {
      spec.commandLine()
          .getErr()
          .println("kvp bundle: cannot write " + target + ": " + PoolSource.why(e));
      return ExitCode.IO.code;
    }
    out.println("wrote " + target + " (" + written + " files)");
    return ExitCode.OK.code;
  }

  /** kvp's own commands, run in this JVM for the bundle's {@code kvp/} files. */
  private static int kvp(List<String> args, PrintWriter out, PrintWriter err) {
    String[] argv = args.toArray(String[]::new);
    CommandLine cli = KvpCommand.commandLine(argv);
    cli.setOut(out);
    cli.setErr(err);
    return cli.execute(argv);
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
