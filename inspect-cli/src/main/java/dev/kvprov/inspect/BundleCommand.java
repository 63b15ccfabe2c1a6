package dev.kvprov.inspect;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvprov.kvp.KvpLimits;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolArchive;
import dev.kvprov.kvp.RecordCodec;
import dev.kvprov.otel.Redactor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorOutputStream;
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
      "It holds the pools and kvprov's archives of earlier boots, what kvp report,",
      "tree, list, doctor and timeline --html say of them, kvprov's configuration",
      "files (secret-looking values masked), its markers, and the journal of",
      "kvprov.service when journalctl is there. Never the provisioning media, custom",
      "data or anything kvprov keeps secret. Prints what it put in, and what it",
      "could not read and why.",
      "",
      "--redact-users replaces user names (the image's accounts, uid 1000 and up)",
      "with stable hashes, for sharing outside the company."
    },
    footer = {
      "",
      "",
      "Examples:",
      "  sudo kvp bundle",
      "  kvp bundle --root /mnt/rescued-disk -o ticket-4711.tar.gz --redact-users"
    })
final class BundleCommand implements Callable<Integer> {
  /** The most one command's output or the journal may add: a bundle goes into a ticket. */
  static final int MAX_PART_BYTES = 32 << 20;

  private static final Pattern TOML_VALUE =
      Pattern.compile("^(\\s*([A-Za-z0-9_.\\-\"]+)\\s*=\\s*)(.+)$");

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin PoolOptions input;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "FILE",
      description = "Where to write it (default: kvp-bundle-<UTC time>.tar.gz here).")
  Path output;

  @Option(names = "--redact-users", description = "Replace user names with stable hashes.")
  boolean redactUsers;

  /** What went in, and what could not, in the order it was tried. */
  private final List<String> manifest = new ArrayList<>();

  private final Map<String, byte[]> entries = new LinkedHashMap<>();
  private final Map<String, String> users = new LinkedHashMap<>();

  @Override
  public Integer call() {
    if (input.fromStdin()) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "it bundles files; give it the pool, not stdin");
    }
    Path root =
        input.source != null && input.source.root != null ? input.source.root : Path.of("/");
    boolean live = input.source == null || input.source.root == null;
    if (redactUsers) {
      learnUsers(root);
    }
    pools(root);
    for (List<String> command :
        List.of(
            List.of("report"),
            List.of("tree"),
            List.of("list", "--wide"),
            List.of("doctor"),
            List.of("timeline"))) {
      run(command, String.join("-", command).replace("--", "") + ".txt");
    }
    page();
    if (input.hostExport() || input.source != null && input.source.file != null) {
      // a file or an export copied from a VM: this machine's state is not that VM's
      manifest.add("not taken: configuration, markers and journal (the input is a file)");
    } else {
      configuration(root);
      markers(root);
      journal(root, live);
    }
    PrintWriter out = spec.commandLine().getOut();
    Path target =
        output != null && !Files.isDirectory(output)
            ? output
            : (output != null ? output : Path.of(""))
                .resolve(
                    "kvp-bundle-"
                        + DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'", Locale.ROOT)
                            .withZone(ZoneOffset.UTC)
                            .format(Instant.now())
                        + ".tar.gz");
    manifest.forEach(out::println);
    entries.put("MANIFEST.txt", (String.join("\n", manifest) + "\n").getBytes(UTF_8));
    try {
      write(target);
    } catch (IOException e) {
      spec.commandLine()
          .getErr()
          .println("kvp bundle: cannot write " + target + ": " + PoolReading.why(e));
      return 3;
    }
    out.println("wrote " + target + " (" + entries.size() + " files)");
    return 0;
  }

  // --- what goes in -----------------------------------------------------------------------------

  private void pools(Path root) {
    List<Path> files = new ArrayList<>();
    if (input.hostExport()) {
      files.add(Path.of(input.source.hostXml));
    } else if (input.source != null && input.source.file != null) {
      files.add(Path.of(input.source.file));
    } else {
      Path directory =
          input.source != null && input.source.root != null
              ? root.resolve("var/lib/hyperv")
              : input.dir;
      for (int pool = 0; pool <= 3; pool++) {
        Path file = directory.resolve(".kvp_pool_" + pool);
        if (Files.exists(file)) {
          files.add(file);
        }
      }
      if (files.isEmpty()) {
        manifest.add("not read: no pool in " + directory);
      }
      Path archives = root.resolve("var/lib/kvprov/kvp-archive");
      PoolSource.unreadableArchives(root)
          .ifPresentOrElse(
              why -> manifest.add("not read: " + why),
              () -> {
                for (int pool = 0; pool <= 3; pool++) {
                  try {
                    files.addAll(PoolArchive.copies(archives, pool));
                  } catch (IOException e) {
                    manifest.add("not read: " + archives + ": " + PoolReading.why(e));
                  }
                }
              });
    }
    boolean given = input.hostExport() || input.source != null && input.source.file != null;
    for (Path file : files) {
      try {
        byte[] bytes = given ? readGiven(file) : readInRoot(file);
        InputKind kind = InputKind.of(bytes, Math.min(bytes.length, InputKind.HEAD_BYTES));
        String wrong = input.hostExport() ? exportProblem(kind) : kind.notAPool();
        if (wrong != null) {
          manifest.add("not taken: " + file + ": " + wrong);
          continue;
        }
        String name =
            (file.getParent() != null && file.getParent().endsWith("kvp-archive")
                    ? "pools/archive/"
                    : "pools/")
                + file.getFileName();
        add(
            name,
            redactUsers
                ? (input.hostExport()
                    ? redact(new String(bytes, UTF_8)).getBytes(UTF_8)
                    : redactPool(bytes))
                : bytes,
            file.toString());
      } catch (IOException e) {
        manifest.add("not read: " + file + ": " + PoolReading.why(e));
      }
    }
  }

  /** One of kvp's own commands on the same input, its output as a file of the bundle. */
  private void run(List<String> command, String name) {
    List<String> args = new ArrayList<>(command);
    args.addAll(inputOptions());
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = KvpCommand.commandLine(args.toArray(String[]::new));
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int exit = cli.execute(args.toArray(String[]::new));
    String text =
        "$ kvp "
            + String.join(" ", args)
            + "\n"
            + out
            + (err.getBuffer().isEmpty() ? "" : "--- stderr\n" + err)
            + "--- exit status "
            + exit
            + "\n";
    // plain text: a terminal's colours mean nothing in a file
    text = text.replaceAll("\u001b\\[[0-9;]*m", "");
    add("kvp/" + name, redact(text).getBytes(UTF_8), "kvp " + String.join(" ", command));
  }

  private void page() {
    try {
      Path page = Files.createTempFile("kvp-bundle", ".html");
      try {
        List<String> args = new ArrayList<>(List.of("timeline", "--html", page.toString()));
        args.addAll(inputOptions());
        CommandLine cli = KvpCommand.commandLine(args.toArray(String[]::new));
        cli.setOut(new PrintWriter(new StringWriter()));
        cli.setErr(new PrintWriter(new StringWriter()));
        if (cli.execute(args.toArray(String[]::new)) == 0) {
          add("kvp/timeline.html", redact(Files.readString(page)).getBytes(UTF_8), "timeline page");
        } else {
          manifest.add("not made: the timeline page (kvp timeline --html failed)");
        }
      } finally {
        Files.deleteIfExists(page);
      }
    } catch (IOException e) {
      manifest.add("not made: the timeline page: " + PoolReading.why(e));
    }
  }

  private List<String> inputOptions() {
    if (input.hostExport()) {
      return List.of("--host-xml", input.source.hostXml);
    }
    if (input.source != null && input.source.file != null) {
      return List.of("--file", input.source.file);
    }
    if (input.source != null && input.source.root != null) {
      return List.of(
          "--root", input.source.root.toString(), "--pool", Integer.toString(input.pool));
    }
    return List.of("--dir", input.dir.toString(), "--pool", Integer.toString(input.pool));
  }

  /** kvprov's (and azure-init's) configuration files, values of secret-looking keys masked. */
  private void configuration(Path root) {
    boolean any = false;
    for (String directory : List.of("etc/kvprov", "etc/azure-init")) {
      Path dir = root.resolve(directory);
      if (!Files.isDirectory(dir)) {
        continue;
      }
      List<Path> files = new ArrayList<>();
      try (Stream<Path> found = Files.walk(dir, 4)) {
        found.filter(f -> f.toString().endsWith(".toml")).sorted().forEach(files::add);
      } catch (IOException e) {
        manifest.add("not read: " + dir + ": " + PoolReading.why(e));
      }
      for (Path file : files) {
        try {
          add(
              "config/" + root.relativize(file),
              redact(maskSecrets(new String(readInRoot(file), UTF_8))).getBytes(UTF_8),
              file.toString());
          any = true;
        } catch (IOException e) {
          manifest.add("not read: " + file + ": " + PoolReading.why(e));
        }
      }
    }
    if (!any) {
      manifest.add("no configuration files in " + root.resolve("etc/kvprov") + " (defaults apply)");
    }
  }

  private static final Pattern URL_CREDENTIALS = Pattern.compile("://[^/@\\s\"']+@");
  private static final Pattern SECRET_PARAMETER =
      Pattern.compile("(?i)([?&](?:sig|token|key|password|secret|code)=)[^&\\s\"']+");

  /**
   * TOML with what may be secret masked: a secret-looking key's value, an inline table or array
   * that names one, a multi-line string under such a key (whole), and credentials in URLs.
   */
  static String maskSecrets(String toml) {
    StringBuilder b = new StringBuilder();
    String closing = null; // the delimiter that ends a multi-line string being masked
    for (String line : toml.split("\n", -1)) {
      if (closing != null) {
        if (line.contains(closing)) {
          closing = null;
        }
        b.append("# [redacted]\n");
        continue;
      }
      Matcher m = TOML_VALUE.matcher(line);
      if (m.matches()) {
        String key = m.group(2).replace("\"", "");
        String value = m.group(3).strip();
        boolean compound = value.startsWith("{") || value.startsWith("[");
        if (Redactor.isSecretKey(key) || compound && Redactor.isSecretKey(value)) {
          for (String quotes : List.of("\"\"\"", "\'\'\'")) {
            if (value.startsWith(quotes) && value.indexOf(quotes, 3) < 0) {
              closing = quotes;
            }
          }
          b.append(m.group(1)).append("\"").append(Redactor.MASK).append("\"\n");
          continue;
        }
      }
      String masked = URL_CREDENTIALS.matcher(line).replaceAll("://" + Redactor.MASK + "@");
      b.append(SECRET_PARAMETER.matcher(masked).replaceAll("$1" + Redactor.MASK)).append('\n');
    }
    return b.substring(0, b.length() - 1);
  }

  /** The most one file may add: pools are a few MiB. */
  static final int MAX_FILE_BYTES = 64 << 20;

  /**
   * A file of the image, read only when it is a regular file that is no link (on a rescued disk, a
   * link leads into the rescue machine, which is not the ticket's), and not too large.
   */
  private static byte[] readInRoot(Path file) throws IOException {
    java.nio.file.attribute.BasicFileAttributes a =
        Files.readAttributes(
            file,
            java.nio.file.attribute.BasicFileAttributes.class,
            java.nio.file.LinkOption.NOFOLLOW_LINKS);
    if (a.isSymbolicLink()) {
      throw new java.nio.file.FileSystemException(file.toString(), null, "a link: not followed");
    }
    if (!a.isRegularFile()) {
      throw new java.nio.file.FileSystemException(file.toString(), null, "not a regular file");
    }
    return capped(file, a.size(), java.nio.file.LinkOption.NOFOLLOW_LINKS);
  }

  /** A file named on the command line: links followed, but a regular file, not too large. */
  private static byte[] readGiven(Path file) throws IOException {
    PoolSource.requireRegularFile(file);
    return capped(file, Files.size(file));
  }

  private static byte[] capped(Path file, long size, java.nio.file.OpenOption... options)
      throws IOException {
    if (size > MAX_FILE_BYTES) {
      throw new java.nio.file.FileSystemException(
          file.toString(), null, size + " bytes: more than a pool or an export holds");
    }
    try (InputStream in = Files.newInputStream(file, options)) {
      return in.readNBytes(MAX_FILE_BYTES);
    }
  }

  /** Why {@code kind} is not a host-side export, or null when it is one. */
  private static String exportProblem(InputKind kind) {
    return kind == InputKind.HOST_EXPORT
        ? null
        : "not a host-side export (" + kind.name().toLowerCase(Locale.ROOT).replace('_', ' ') + ")";
  }

  /**
   * kvprov's markers ({@code <vm id>.provisioned}, {@code .ready}: when each was written), and the
   * names of the other files there; never their contents, which may be the media's.
   */
  private void markers(Path root) {
    Path state = root.resolve("var/lib/kvprov");
    if (!Files.isDirectory(state)) {
      manifest.add("no kvprov state directory at " + state);
      return;
    }
    StringBuilder listing = new StringBuilder();
    try (Stream<Path> files = Files.list(state)) {
      for (Path f : (Iterable<Path>) files.sorted()::iterator) {
        String name = f.getFileName().toString();
        listing.append(Files.isDirectory(f) ? name + "/" : name);
        if (name.endsWith(".provisioned") || name.endsWith(".ready")) {
          // when it was written, from the file system: a marker's contents are not read
          listing
              .append("  written ")
              .append(Files.getLastModifiedTime(f, java.nio.file.LinkOption.NOFOLLOW_LINKS));
        }
        listing.append('\n');
      }
      add("state/markers.txt", redact(listing.toString()).getBytes(UTF_8), state.toString());
    } catch (IOException e) {
      manifest.add("not read: " + state + ": " + PoolReading.why(e));
    }
  }

  private void journal(Path root, boolean live) {
    Path journalctl =
        Stream.of("/usr/bin/journalctl", "/bin/journalctl")
            .map(Path::of)
            .filter(Files::isExecutable)
            .findFirst()
            .orElse(null);
    if (journalctl == null) {
      manifest.add("no journal: journalctl is not installed");
      return;
    }
    List<String> command = new ArrayList<>(List.of(journalctl.toString()));
    if (live) {
      command.addAll(List.of("-b", "-u", "kvprov.service"));
    } else {
      Path logs = root.resolve("var/log/journal");
      if (!Files.isDirectory(logs)) {
        manifest.add("no journal: " + logs + " does not exist (a volatile journal, or none)");
        return;
      }
      command.addAll(List.of("-D", logs.toString(), "-u", "kvprov.service"));
    }
    command.addAll(List.of("--no-pager", "-o", "short-iso-precise"));
    try {
      Path captured = Files.createTempFile("kvp-bundle-journal", ".txt");
      try {
        Process p =
            new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(captured.toFile())
                .start();
        p.getOutputStream().close();
        boolean ended = p.waitFor(20, TimeUnit.SECONDS);
        if (!ended) {
          p.destroyForcibly(); // what it wrote so far is kept
        }
        byte[] text;
        try (InputStream in = Files.newInputStream(captured)) {
          text = in.readNBytes(MAX_PART_BYTES);
        }
        boolean more = Files.size(captured) > MAX_PART_BYTES;
        String journal =
            new String(text, UTF_8)
                + (more ? "\n[cut at 32 MiB]\n" : "")
                + (ended ? "" : "\n[journalctl did not end within 20 s: cut there]\n");
        add(
            "journal/kvprov.service.txt",
            redact(journal).getBytes(UTF_8),
            String.join(" ", command));
      } finally {
        Files.deleteIfExists(captured);
      }
    } catch (IOException e) {
      manifest.add("no journal: " + PoolReading.why(e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      manifest.add("no journal: interrupted");
    }
  }

  private void add(String name, byte[] bytes, String from) {
    entries.put(name, bytes);
    manifest.add("added " + name + " (" + bytes.length + " bytes, from " + from + ")");
  }

  // --- user names -------------------------------------------------------------------------------

  /** The image's own accounts: uid 1000 and up, not nobody. */
  private void learnUsers(Path root) {
    try {
      for (String line : Files.readAllLines(root.resolve("etc/passwd"), UTF_8)) {
        String[] f = line.split(":", -1);
        if (f.length > 2 && f[2].matches("\\d{1,9}")) {
          long uid = Long.parseLong(f[2]);
          if (uid >= 1000 && uid < 65534 && !f[0].isEmpty()) {
            users.put(f[0], "user-" + hash(f[0]));
          }
        }
      }
      manifest.add("user names replaced by hashes: " + users.size());
    } catch (IOException e) {
      manifest.add(
          "not read: "
              + root.resolve("etc/passwd")
              + ": "
              + PoolReading.why(e)
              + " (no user names to replace)");
    }
  }

  static String hash(String name) {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(name.getBytes(UTF_8)))
          .substring(0, 10);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private String redact(String text) {
    String result = text;
    for (Map.Entry<String, String> user : users.entrySet()) {
      result =
          result.replaceAll(
              // whole names only, wherever they stand: a path, a file name, a sentence
              "(?<![A-Za-z0-9_])" + Pattern.quote(user.getKey()) + "(?![A-Za-z0-9_])",
              Matcher.quoteReplacement(user.getValue()));
    }
    return result;
  }

  /** A pool with the user names in its records replaced: each record decoded and written again. */
  private byte[] redactPool(byte[] pool) {
    if (users.isEmpty()) {
      return pool;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(pool.length);
    for (KvpRecord r : RecordCodec.decode(pool).records()) {
      if (compressed(r.key())) {
        // a name inside a compressed payload cannot be found without decoding it: left out
        out.writeBytes(
            RecordCodec.encode(
                new KvpRecord(redact(r.key()), "[redacted: compressed payload]"), KvpLimits.WIRE));
        continue;
      }
      KvpRecord redacted = new KvpRecord(redact(r.key()), redact(r.value()));
      try {
        out.writeBytes(RecordCodec.encode(redacted, KvpLimits.WIRE));
      } catch (IllegalArgumentException e) {
        out.writeBytes(
            RecordCodec.encode(new KvpRecord(redact(r.key()), "[redacted]"), KvpLimits.WIRE));
      }
    }
    return out.toByteArray();
  }

  /** A record whose value is compressed: azure-init's encoded payloads, cloud-init's dmesg. */
  private static boolean compressed(String key) {
    return key.contains("|gz+b64|")
        || key.contains("|zlib+b64|")
        || key.contains("|b64|")
        || key.startsWith("CLOUD_INIT|") && key.contains("|compressed|");
  }

  // --- the archive ------------------------------------------------------------------------------

  private void write(Path target) throws IOException {
    Path parent = target.toAbsolutePath().getParent();
    if (parent == null) {
      parent = Path.of("").toAbsolutePath();
    }
    Path partial = Files.createTempFile(parent, ".kvp-bundle", ".partial");
    try {
      try (OutputStream file = Files.newOutputStream(partial);
          TarArchiveOutputStream tar =
              new TarArchiveOutputStream(new GzipCompressorOutputStream(file))) {
        tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
        Instant now = Instant.now();
        for (Map.Entry<String, byte[]> e : entries.entrySet()) {
          TarArchiveEntry entry = new TarArchiveEntry("kvp-bundle/" + e.getKey());
          entry.setSize(e.getValue().length);
          entry.setMode(0600);
          entry.setModTime(now.toEpochMilli());
          tar.putArchiveEntry(entry);
          tar.write(e.getValue());
          tar.closeArchiveEntry();
        }
      }
      Files.setPosixFilePermissions(
          partial, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
      Files.move(
          partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(partial);
    }
  }
}
