package dev.kvprov.inspect.cli;

import dev.kvprov.inspect.pool.InputKind;
import dev.kvprov.inspect.pool.PoolSource;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Option;

/**
 * The options every command that reads a pool shares: which pool, or which file, disk or export
 * instead. {@link #sources} says what they name; {@link PoolReading} reads it.
 */
public final class PoolOptions {
  /** At most one of these; none means the live pool in {@code --dir}. */
  public static final class Source {
    @Option(
        names = "--file",
        paramLabel = "F",
        description = "A pool file or an archived pool; - reads a pool from stdin.")
    public String file;

    @Option(
        names = "--root",
        paramLabel = "R",
        description =
            "A mounted OS disk: kvprov's archives of earlier boots under R, then R's pool.")
    public Path root;

    @Option(
        names = "--host-xml",
        paramLabel = "F",
        description =
            "A host-side export: Msvm_KvpExchangeDataItem CIM-XML, one per line,"
                + " concatenated, or a JSON array of them; - reads stdin.")
    public String hostXml;
  }

  @ArgGroup(exclusive = true, multiplicity = "0..1")
  public Source source = new Source();

  @Option(
      names = "--dir",
      paramLabel = "DIR",
      defaultValue = "/var/lib/hyperv",
      description = "The pool directory (default: ${DEFAULT-VALUE}).")
  public Path dir;

  public int pool;

  @CommandLine.Spec(CommandLine.Spec.Target.MIXEE)
  CommandLine.Model.CommandSpec mixee;

  @Option(
      names = "--pool",
      paramLabel = "N",
      defaultValue = "1",
      description = "Which pool, 0 to 3 (default: ${DEFAULT-VALUE}).")
  void pool(int n) {
    if (n < 0 || n > 3) {
      // Hyper-V has pools 0 to 3 only: a read would find no file, a watch would wait for ever.
      throw new CommandLine.ParameterException(
          mixee.commandLine(), "--pool is 0 to 3; Hyper-V has no pool " + n);
    }
    pool = n;
  }

  /**
   * What will be read, in order: with {@code --root}, archived boots oldest first, then the pool.
   */
  List<PoolSource> sources() throws IOException {
    if (hostExport()) {
      return List.of(PoolSource.hostExport(source.hostXml));
    }
    if (source != null && "-".equals(source.file)) {
      return List.of(PoolSource.stdinPool());
    }
    if (source != null && source.root != null) {
      return PoolSource.rescuedDisk(source.root, pool);
    }
    return List.of(PoolSource.poolFile(path()));
  }

  /**
   * With {@code --root}: what under the root is not read, one line each: archives of earlier boots
   * that cannot be read, and links that lead out of the root.
   */
  List<String> notRead() {
    if (source == null || source.root == null || hostExport() || fromStdin()) {
      return List.of();
    }
    List<String> lines = new java.util.ArrayList<>();
    PoolSource.unreadableArchives(source.root).ifPresent(lines::add);
    lines.addAll(PoolSource.waysOut(source.root, pool));
    return lines;
  }

  /** With {@code --root}: why the archives of earlier boots cannot be read, if they cannot. */
  public java.util.Optional<String> unreadableArchives() {
    return source != null && source.root != null && !hostExport() && !fromStdin()
        ? PoolSource.unreadableArchives(source.root)
        : java.util.Optional.empty();
  }

  /**
   * The pool file the options name, for a command that changes it, once it is known to be a pool
   * (or missing: a new pool is made): anything else is left as it is, byte for byte. Under {@code
   * --root}, nothing is changed through a link that leads out of the root.
   *
   * @throws CommandLine.ParameterException for stdin or a host export, which are read-only
   * @throws IOException saying why the file is not changed, in one line (the command exits 3)
   */
  public dev.kvprov.kvp.PoolFile.Builder writablePool() throws IOException {
    if (fromStdin() || hostExport()) {
      throw new CommandLine.ParameterException(
          mixee.commandLine(), "it changes a pool file; stdin and host exports are read-only");
    }
    Path path = path();
    if (source != null && source.root != null) {
      java.util.Optional<dev.kvprov.kvp.WayOut> out =
          dev.kvprov.kvp.WayOut.find(source.root, PoolSource.poolUnderRoot(pool));
      if (out.isPresent()) {
        throw new InputKind.WrongInput(out.get().describe(source.root) + ": left as it is");
      }
    }
    PoolSource.requireChangeablePool(path);
    return dev.kvprov.kvp.PoolFile.builder().file(path);
  }

  /** The pool file named by the options (not meaningful for stdin or a host export). */
  public Path path() {
    if (source != null && source.file != null) {
      return Path.of(source.file);
    }
    Path base = source != null && source.root != null ? source.root.resolve("var/lib/hyperv") : dir;
    return base.resolve(".kvp_pool_" + pool);
  }

  public boolean hostExport() {
    return source != null && source.hostXml != null;
  }

  public boolean fromStdin() {
    return source != null && ("-".equals(source.file) || "-".equals(source.hostXml));
  }

  public String describe() {
    if (fromStdin()) {
      return "stdin";
    }
    if (hostExport()) {
      return source.hostXml;
    }
    return path().toString();
  }
}
