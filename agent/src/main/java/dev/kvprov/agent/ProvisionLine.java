package dev.kvprov.agent;

import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * {@code kvprov provision}'s plain command lines, read without picocli: what kvprov.service runs at
 * every first boot ({@code kvprov provision}) and what an image build or the bench runs ({@code
 * --root}, {@code --config}, {@code --media-dir}...). picocli builds its model of a command from
 * its annotations at every start, through proxies the JDK generates anew each time (neither a CDS
 * archive nor an AOT cache keeps them): some 30-60 ms of a first boot's main thread, before any of
 * its work (docs/performance.md, "A first boot, phase by phase").
 *
 * <p>Only lines whose meaning is beyond doubt are read here: each of the options below at most
 * once, as {@code --name value} or {@code --name=value}, with a value that does not look like an
 * option. Anything else — help, {@code --groups}, an unknown or repeated option, an argument file,
 * a bad step name — is left to picocli, which parses it as before and says what is wrong in its own
 * words. {@code ProvisionLineTest} holds both readings of the same lines side by side.
 */
final class ProvisionLine {
  private ProvisionLine() {}

  /** The command {@code args} run, when they are such a plain {@code provision} line. */
  static Optional<ProvisionCommand> parse(String[] args) {
    if (args.length == 0 || !args[0].equals("provision")) {
      return Optional.empty();
    }
    ProvisionCommand command = new ProvisionCommand();
    command.options = new ConfigOptions();
    command.options.root = Path.of("/");
    command.mediaOptions = new MediaOptions();
    Set<String> seen = new HashSet<>();
    for (int i = 1; i < args.length; i++) {
      String arg = args[i];
      int equals = arg.indexOf('=');
      boolean joined = arg.startsWith("--") && equals > 0; // --name=value
      String name = joined ? arg.substring(0, equals) : arg;
      if (!seen.add(name)) {
        return Optional.empty();
      }
      if (name.equals("--force") || name.equals("--offline")) {
        if (joined) {
          return Optional.empty(); // --force=true: picocli's to read
        }
        command.force |= name.equals("--force");
        command.offline |= name.equals("--offline");
        continue;
      }
      String value;
      if (joined) {
        value = arg.substring(equals + 1);
      } else if (i + 1 < args.length) {
        value = args[++i];
      } else {
        return Optional.empty();
      }
      if (value.isEmpty() || value.startsWith("-") || value.startsWith("@")) {
        return Optional.empty();
      }
      try {
        switch (name) {
          case "--root" -> command.options.root = Path.of(value);
          case "--config" -> command.options.config = Path.of(value);
          case "--media-dir" -> command.mediaOptions.mediaDir = Path.of(value);
          case "--only" -> command.only = value;
          case "--skip" -> command.skip = value;
          default -> {
            return Optional.empty();
          }
        }
      } catch (InvalidPathException e) {
        return Optional.empty();
      }
    }
    try {
      ProvisionCommand.selected(command.only, command.skip);
    } catch (IllegalArgumentException e) {
      return Optional.empty(); // picocli says it, with the usage
    }
    return Optional.of(command);
  }

  /**
   * Runs {@code command} as picocli would have: its exit status, or a failure said in one line on
   * stderr ({@code KvprovCommand}'s handler's words).
   */
  static int execute(ProvisionCommand command) {
    StartupPhases.mark("cli");
    PrintWriter err = new PrintWriter(System.err, true, Charset.defaultCharset());
    try {
      return command.provision(ProvisionCommand.selected(command.only, command.skip), err);
    } catch (Exception e) {
      err.println("kvprov: " + e.getMessage());
      return ExitCode.FAILED.code;
    } finally {
      err.flush();
    }
  }
}
