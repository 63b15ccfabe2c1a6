package dev.kvprov.inspect;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvprov.kvp.IoErrors;
import dev.kvprov.kvp.PoolArchive;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.PoolVisitor;
import dev.kvprov.kvp.RecordCodec;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Option;

/**
 * Where the pool comes from; shared by every read command. Reading never modifies the input. Shared
 * locks are taken only on a live pool on Linux, so copies, archives and host exports are read with
 * plain Java I/O anywhere Java runs, the Hyper-V host included.
 */
final class PoolInput {
  private static final Pattern LIVE_POOL = Pattern.compile("\\.kvp_pool_\\d");

  /** Where kvprov archives a root's earlier boots, below the root. */
  private static final Path ARCHIVE_UNDER_ROOT =
      Path.of("/").relativize(PoolFile.DEFAULT_ARCHIVE_DIRECTORY);

  /** At most one of these; none means the live pool in {@code --dir}. */
  static final class Source {
    @Option(
        names = "--file",
        paramLabel = "F",
        description = "A pool file or an archived pool; - reads a pool from stdin.")
    String file;

    @Option(
        names = "--root",
        paramLabel = "R",
        description =
            "A mounted OS disk: kvprov's archives of earlier boots under R, then R's pool.")
    Path root;

    @Option(
        names = "--host-xml",
        paramLabel = "F",
        description =
            "A host-side export: Msvm_KvpExchangeDataItem CIM-XML, one per line,"
                + " concatenated, or a JSON array of them; - reads stdin.")
    String hostXml;
  }

  @ArgGroup(exclusive = true, multiplicity = "0..1")
  Source source = new Source();

  @Option(
      names = "--dir",
      paramLabel = "DIR",
      defaultValue = "/var/lib/hyperv",
      description = "The pool directory (default: ${DEFAULT-VALUE}).")
  Path dir;

  int pool;

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

  /** Receives one part's records, then {@link #finish} once the part has been read. */
  interface PartVisitor extends PoolVisitor {
    default void finish() {}
  }

  /** One thing to read: a pool file, stdin, or a host export. */
  record Part(String name, Kind kind, Path path) {
    enum Kind {
      LIVE_POOL,
      POOL_FILE,
      STDIN_POOL,
      HOST_EXPORT,
      STDIN_HOST_EXPORT
    }
  }

  /**
   * What will be read, in order: with {@code --root}, archived boots oldest first, then the pool.
   */
  List<Part> parts() throws IOException {
    if (source != null && source.hostXml != null) {
      return List.of(
          "-".equals(source.hostXml)
              ? new Part("stdin", Part.Kind.STDIN_HOST_EXPORT, null)
              : new Part(source.hostXml, Part.Kind.HOST_EXPORT, Path.of(source.hostXml)));
    }
    if (source != null && "-".equals(source.file)) {
      return List.of(new Part("stdin", Part.Kind.STDIN_POOL, null));
    }
    if (source != null && source.root != null) {
      List<Part> parts = new ArrayList<>(archives(source.root.resolve(ARCHIVE_UNDER_ROOT)));
      Path live = path();
      if (Files.exists(live) || parts.isEmpty()) {
        parts.add(new Part(live.toString(), Part.Kind.POOL_FILE, live));
      }
      return parts;
    }
    Path path = path();
    boolean live =
        LIVE_POOL.matcher(path.getFileName().toString()).matches()
            && System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux");
    return List.of(
        new Part(path.toString(), live ? Part.Kind.LIVE_POOL : Part.Kind.POOL_FILE, path));
  }

  /** This pool's archived copies under {@code directory}, oldest boot first. */
  private List<Part> archives(Path directory) throws IOException {
    return PoolArchive.copies(directory, pool).stream()
        .map(c -> new Part(c.toString(), Part.Kind.POOL_FILE, c))
        .toList();
  }

  /** The most {@code kvp} reads from stdin: twice the largest pool seen in practice. */
  static final long MAX_STDIN_BYTES = 512L << 20;

  /**
   * Checks that {@code path} is a regular file (following links) before anything opens it: opening
   * a named pipe waits for a writer for ever, and a device such as {@code /dev/zero} never ends.
   *
   * @throws FileSystemException saying what it is instead
   */
  static void requireRegularFile(Path path) throws IOException {
    if (Files.isRegularFile(path) || !Files.exists(path)) {
      return; // a missing file fails on opening, with its own reason
    }
    String what;
    if (Files.isDirectory(path)) {
      what = "a directory";
    } else {
      int type;
      try {
        type = ((Integer) Files.getAttribute(path, "unix:mode")) & 0170000;
      } catch (UnsupportedOperationException | IllegalArgumentException e) {
        type = 0;
      }
      what =
          switch (type) {
            case 0010000 -> "a named pipe";
            case 0020000 -> "a character device";
            case 0060000 -> "a block device";
            case 0140000 -> "a socket";
            default -> "not a file";
          };
    }
    throw new FileSystemException(
        path.toString(),
        null,
        what + ", not a pool file (kvp reads files, or stdin with --file - or --host-xml -)");
  }

  /** Streams one part's records to {@code visitor}. */
  private static void scan(Part part, InputStream stdin, PoolVisitor visitor) throws IOException {
    if (part.path() != null) {
      requireRegularFile(part.path());
    }
    switch (part.kind()) {
      case LIVE_POOL -> PoolFile.builder().file(part.path()).build().scan(visitor);
      case POOL_FILE -> {
        try (java.nio.channels.FileChannel file = java.nio.channels.FileChannel.open(part.path())) {
          RecordCodec.scan(file, visitor);
        }
      }
      case STDIN_POOL -> RecordCodec.scan(stdin, visitor);
      case HOST_EXPORT -> {
        try (InputStream in = Files.newInputStream(part.path())) {
          HostExport.scan(text(in), visitor);
        }
      }
      case STDIN_HOST_EXPORT -> HostExport.scan(text(stdin), visitor);
    }
  }

  /**
   * The export's text: UTF-8 unless a byte order mark says UTF-16, as Windows PowerShell's {@code
   * Out-File} writes by default.
   */
  private static Reader text(InputStream raw) throws IOException {
    BufferedInputStream in = new BufferedInputStream(raw);
    in.mark(3);
    int b0 = in.read();
    int b1 = in.read();
    int b2 = in.read();
    Charset charset = UTF_8;
    int skip = 0;
    if (b0 == 0xFF && b1 == 0xFE) {
      charset = StandardCharsets.UTF_16LE;
      skip = 2;
    } else if (b0 == 0xFE && b1 == 0xFF) {
      charset = StandardCharsets.UTF_16BE;
      skip = 2;
    } else if (b0 == 0xEF && b1 == 0xBB && b2 == 0xBF) {
      skip = 3;
    }
    in.reset();
    in.skipNBytes(skip);
    return new InputStreamReader(in, charset);
  }

  /**
   * Streams each part's records to the visitor {@code visitorFor} makes for it, telling {@code
   * onPart} before each part when there is more than one. On an I/O error, says why on stderr
   * (naming the command and the input) and returns false: the command exits 3.
   */
  boolean forEachPart(
      java.util.function.Function<Part, ? extends PartVisitor> visitorFor,
      Consumer<Part> onPart,
      CommandLine.Model.CommandSpec spec) {
    String reading = describe();
    try {
      List<Part> parts = parts();
      for (Part part : parts) {
        reading = part.name();
        if (parts.size() > 1) {
          onPart.accept(part);
        }
        PartVisitor visitor = visitorFor.apply(part);
        scan(part, new CappedInput(System.in, MAX_STDIN_BYTES), visitor);
        visitor.finish();
      }
      return true;
    } catch (IOException e) {
      spec.commandLine().getErr().println("kvp " + spec.name() + ": " + reading + ": " + why(e));
      return false;
    }
  }

  /**
   * Streams the logical items to {@code sink}, part by part (pieces are never joined across parts);
   * otherwise as {@link #forEachPart}.
   */
  boolean forEachItem(
      Consumer<Item> sink, Consumer<Part> onPart, CommandLine.Model.CommandSpec spec) {
    return forEachPart(part -> new Items(sink), onPart, spec);
  }

  /** {@link #forEachItem(Consumer, Consumer, CommandLine.Model.CommandSpec)}, parts unmarked. */
  boolean forEachItem(Consumer<Item> sink, CommandLine.Model.CommandSpec spec) {
    return forEachItem(sink, part -> {}, spec);
  }

  /** Why an input could not be read, in a few words (Java's messages are often just the path). */
  static String why(IOException e) {
    return IoErrors.reason(e);
  }

  /** The pool file named by the options (not meaningful for stdin or a host export). */
  Path path() {
    if (source != null && source.file != null) {
      return Path.of(source.file);
    }
    Path base = source != null && source.root != null ? source.root.resolve("var/lib/hyperv") : dir;
    return base.resolve(".kvp_pool_" + pool);
  }

  boolean fromStdin() {
    return source != null && ("-".equals(source.file) || "-".equals(source.hostXml));
  }

  String describe() {
    if (fromStdin()) {
      return "stdin";
    }
    if (source != null && source.hostXml != null) {
      return source.hostXml;
    }
    return path().toString();
  }
}
