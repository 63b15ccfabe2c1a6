package dev.kvprov.inspect.pool;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvprov.kvp.IoErrors;
import dev.kvprov.kvp.PoolArchive;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.PoolVisitor;
import dev.kvprov.kvp.RecordCodec;
import dev.kvprov.kvp.WayOut;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * One thing to read records from: a live pool, a copy or archive of one, a pool on stdin, or a
 * host-side export (from a file or stdin). Reading never modifies it. Shared locks are taken only
 * on a live pool on Linux, so copies, archives and host exports are read with plain Java I/O
 * anywhere Java runs, the Hyper-V host included.
 *
 * @param name how messages name it: its path, or {@code stdin}
 * @param path its file, or null for stdin
 */
public record PoolSource(String name, Kind kind, Path path) {
  public enum Kind {
    LIVE_POOL,
    POOL_FILE,
    STDIN_POOL,
    HOST_EXPORT,
    STDIN_HOST_EXPORT
  }

  private static final Pattern LIVE_POOL = Pattern.compile("\\.kvp_pool_\\d");

  /** Where kvprov archives a root's earlier boots, below the root. */
  private static final Path ARCHIVE_UNDER_ROOT =
      Path.of("/").relativize(PoolFile.DEFAULT_ARCHIVE_DIRECTORY);

  /** The most {@code kvp} reads from stdin: twice the largest pool seen in practice. */
  public static final long MAX_STDIN_BYTES = 512L << 20;

  /** A pool on stdin. */
  public static PoolSource stdinPool() {
    return new PoolSource("stdin", Kind.STDIN_POOL, null);
  }

  /** A host-side export in {@code file}, or on stdin for {@code -}. */
  public static PoolSource hostExport(String file) {
    return "-".equals(file)
        ? new PoolSource("stdin", Kind.STDIN_HOST_EXPORT, null)
        : new PoolSource(file, Kind.HOST_EXPORT, Path.of(file));
  }

  /** A pool file: live (locked while read) when named as Hyper-V names its pools, on Linux. */
  public static PoolSource poolFile(Path path) {
    boolean live =
        LIVE_POOL.matcher(path.getFileName().toString()).matches()
            && System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux");
    return new PoolSource(path.toString(), live ? Kind.LIVE_POOL : Kind.POOL_FILE, path);
  }

  /** Where Hyper-V keeps a root's pools, below the root. */
  private static final String POOLS_UNDER_ROOT = "var/lib/hyperv";

  /**
   * A mounted OS disk's pool {@code pool}: kvprov's archived copies of it, oldest boot first, then
   * the pool itself (when it exists, or when there is nothing else to read). Archives that cannot
   * be read are not passed over in silence: {@link #unreadableArchives} says why. Nothing is read
   * through a link that leads out of the root ({@link #waysOut} says which).
   *
   * @throws InputKind.WrongInput when links out of the root leave nothing to read
   */
  public static List<PoolSource> rescuedDisk(Path root, int pool) throws IOException {
    List<PoolSource> sources = new ArrayList<>();
    if (unreadableArchives(root).isEmpty()) {
      for (Path copy : PoolArchive.copies(root.resolve(ARCHIVE_UNDER_ROOT), pool)) {
        if (WayOut.find(root, root.relativize(copy).toString()).isEmpty()) {
          sources.add(new PoolSource(copy.toString(), Kind.POOL_FILE, copy));
        }
      }
    }
    String live = poolUnderRoot(pool);
    if (WayOut.find(root, live).isPresent()) {
      if (sources.isEmpty()) {
        throw new InputKind.WrongInput(
            "not read (see above), and no archive of an earlier boot either: nothing to read");
      }
      return sources;
    }
    Path path = root.resolve(live);
    if (Files.exists(path) || sources.isEmpty()) {
      sources.add(new PoolSource(path.toString(), Kind.POOL_FILE, path));
    }
    return sources;
  }

  /** {@code var/lib/hyperv/.kvp_pool_N}: pool {@code pool}'s place below a root. */
  public static String poolUnderRoot(int pool) {
    return POOLS_UNDER_ROOT + "/.kvp_pool_" + pool;
  }

  /**
   * The links under {@code root} that lead out of it on the way to pool {@code pool} or to an
   * archived copy of it, each said in one line: what they lead to is never read. The same rule
   * kvprov follows when it writes under a root ({@link WayOut}). (The archive directory itself is
   * said by {@link #unreadableArchives}.)
   */
  public static List<String> waysOut(Path root, int pool) {
    List<String> refused = new ArrayList<>();
    wayOut(root, poolUnderRoot(pool)).ifPresent(refused::add);
    if (unreadableArchives(root).isEmpty()) {
      try {
        for (Path copy : PoolArchive.copies(root.resolve(ARCHIVE_UNDER_ROOT), pool)) {
          wayOut(root, root.relativize(copy).toString()).ifPresent(refused::add);
        }
      } catch (IOException e) {
        // said when the archives are read
      }
    }
    return refused;
  }

  /** Why {@code relative} below {@code root} is not read, if a link on the way leads out. */
  public static java.util.Optional<String> wayOut(Path root, String relative) {
    try {
      return WayOut.find(root, relative).map(w -> w.describe(root) + ": not read");
    } catch (IOException e) {
      return java.util.Optional.of(root.resolve(relative) + ": " + why(e) + ": not read");
    }
  }

  /**
   * Why the archives of earlier boots under {@code root} cannot be read, with the fix; empty when
   * they can (or there are none). kvprov keeps them in a directory only root may enter, so an
   * ordinary user reading a rescued disk would otherwise see only the last boot, and not know. A
   * directory that is a link out of the root is not read either.
   */
  public static java.util.Optional<String> unreadableArchives(Path root) {
    java.util.Optional<String> out = wayOut(root, ARCHIVE_UNDER_ROOT.toString());
    if (out.isPresent()) {
      return out;
    }
    Path directory = root.resolve(ARCHIVE_UNDER_ROOT);
    boolean known = Files.exists(directory) || Files.notExists(directory);
    boolean readable =
        known
            && (!Files.isDirectory(directory)
                || Files.isReadable(directory) && Files.isExecutable(directory));
    if (readable) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(
        directory
            + ": permission denied: the archives of earlier boots there are not read"
            + " (run kvp with sudo to see every boot)");
  }

  /**
   * Streams its records to {@code visitor}; {@code stdin} is what stands for stdin.
   *
   * @throws InputKind.WrongInput when it is not what it was given as (an export given as a pool,
   *     say), saying what it looks like and the fix
   */
  public void scan(InputStream stdin, PoolVisitor visitor) throws IOException {
    if (path != null) {
      requireRegularFile(path);
    }
    switch (kind) {
      case LIVE_POOL -> {
        requirePool(path);
        PoolFile.builder().file(path).build().scan(visitor);
      }
      case POOL_FILE -> {
        try (FileChannel file = FileChannel.open(path)) {
          requirePool(head(file));
          file.position(0);
          RecordCodec.scan(file, visitor);
        }
      }
      case STDIN_POOL -> {
        BufferedInputStream in = new BufferedInputStream(stdin, 2 * InputKind.HEAD_BYTES);
        requirePool(head(in));
        RecordCodec.scan(in, visitor);
      }
      case HOST_EXPORT -> {
        try (InputStream in = new BufferedInputStream(Files.newInputStream(path))) {
          requireExport(head(in));
          HostExport.scan(text(in), visitor);
        }
      }
      case STDIN_HOST_EXPORT -> {
        BufferedInputStream in = new BufferedInputStream(stdin, 2 * InputKind.HEAD_BYTES);
        requireExport(head(in));
        HostExport.scan(text(in), visitor);
      }
    }
  }

  private static void requirePool(InputKind kind) throws InputKind.WrongInput {
    if (kind.notAPool() != null) {
      throw new InputKind.WrongInput(kind.notAPool());
    }
  }

  private static void requireExport(InputKind kind) throws InputKind.WrongInput {
    if (kind.notAHostExport() != null) {
      throw new InputKind.WrongInput(kind.notAHostExport());
    }
  }

  /** Checks that the file at {@code path} looks like a pool (an empty one does). */
  public static void requirePool(Path path) throws IOException {
    requirePool(head(path));
  }

  /**
   * Checks, before a command changes it, that {@code path} is a pool (an empty one is) or nothing
   * yet (a new pool is made): as the read commands check what they read, so that an export, a
   * tarball or a log handed to {@code clear} or {@code append} is left as it is.
   *
   * @throws IOException saying what it is instead, in one line
   */
  public static void requireChangeablePool(Path path) throws IOException {
    requireRegularFile(path);
    InputKind kind;
    try {
      kind = head(path);
    } catch (java.nio.file.NoSuchFileException e) {
      return; // made as a new pool
    }
    if (kind.notAPool() != null) {
      throw new InputKind.WrongInput(kind.notAPoolToChange());
    }
  }

  private static InputKind head(Path path) throws IOException {
    try (FileChannel file = FileChannel.open(path)) {
      return head(file);
    }
  }

  private static InputKind head(FileChannel file) throws IOException {
    ByteBuffer head = ByteBuffer.allocate(InputKind.HEAD_BYTES);
    while (head.hasRemaining() && file.read(head) > 0) {
      // until the head is full or the file ends
    }
    return InputKind.of(head.array(), head.position());
  }

  /** The kind of what {@code in} holds, read without taking it: {@code in} is reset. */
  private static InputKind head(InputStream in) throws IOException {
    in.mark(InputKind.HEAD_BYTES);
    byte[] head = in.readNBytes(InputKind.HEAD_BYTES);
    in.reset();
    return InputKind.of(head, head.length);
  }

  /**
   * Checks that {@code path} is a regular file (following links) before anything opens it: opening
   * a named pipe waits for a writer for ever, and a device such as {@code /dev/zero} never ends.
   *
   * @throws FileSystemException saying what it is instead
   */
  public static void requireRegularFile(Path path) throws IOException {
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

  /**
   * The export's text: UTF-8 unless a byte order mark says UTF-16, as Windows PowerShell's {@code
   * Out-File} writes by default.
   */
  static Reader text(InputStream raw) throws IOException {
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

  /** Why an input could not be read, in a few words (Java's messages are often just the path). */
  public static String why(IOException e) {
    return e instanceof InputKind.WrongInput ? e.getMessage() : IoErrors.reason(e);
  }
}
