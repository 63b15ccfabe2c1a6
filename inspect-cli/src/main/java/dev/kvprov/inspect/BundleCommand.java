package dev.kvprov.inspect;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvprov.kvp.KvpLimits;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolArchive;
import dev.kvprov.kvp.RecordCodec;
import dev.kvprov.otel.Redactor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
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
      "One .tar.gz for a support ticket, like cloud-init collect-logs: the pools and",
      "kvprov's archives of earlier boots, what kvp report, tree, list, doctor and",
      "timeline --html say of them, kvprov's configuration files (secret-looking",
      "values masked), its markers, and the journal of kvprov.service when journalctl",
      "is there. Never the provisioning media, custom data or anything kvprov keeps",
      "secret. Prints what it put in, and what it could not read and why.",
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
    configuration(root);
    markers(root);
    journal(root, live);
    PrintWriter out = spec.commandLine().getOut();
    Path target =
        output != null
            ? output
            : Path.of(
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
    for (Path file : files) {
      try {
        PoolSource.requireRegularFile(file);
        byte[] bytes = Files.readAllBytes(file);
        String name =
            (file.getParent() != null && file.getParent().endsWith("kvp-archive")
                    ? "pools/archive/"
                    : "pools/")
                + file.getFileName();
        add(name, redactUsers && !input.hostExport() ? redactPool(bytes) : bytes, file.toString());
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
      try (Stream<Path> found = Files.walk(dir, 2)) {
        found.filter(f -> f.toString().endsWith(".toml")).sorted().forEach(files::add);
      } catch (IOException e) {
        manifest.add("not read: " + dir + ": " + PoolReading.why(e));
      }
      for (Path file : files) {
        try {
          PoolSource.requireRegularFile(file);
          add(
              "config/" + root.relativize(file),
              redact(maskSecrets(Files.readString(file))).getBytes(UTF_8),
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

  /** {@code key = value} lines whose key looks like a secret's keep the key, not the value. */
  static String maskSecrets(String toml) {
    StringBuilder b = new StringBuilder();
    for (String line : toml.split("\n", -1)) {
      Matcher m = TOML_VALUE.matcher(line);
      if (m.matches() && Redactor.isSecretKey(m.group(2).replace("\"", ""))) {
        b.append(m.group(1)).append("\"").append(Redactor.MASK).append("\"");
      } else {
        b.append(line);
      }
      b.append('\n');
    }
    return b.substring(0, b.length() - 1);
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
          String written = Files.readString(f).strip();
          listing.append("  written ").append(written.isEmpty() ? "(time not recorded)" : written);
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
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      p.getOutputStream().close();
      byte[] text = p.getInputStream().readNBytes(MAX_PART_BYTES);
      boolean more = p.getInputStream().read() >= 0;
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
      String journal = new String(text, UTF_8) + (more ? "\n[cut at 32 MiB]\n" : "");
      add("journal/kvprov.service.txt", redact(journal).getBytes(UTF_8), String.join(" ", command));
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

  // --- the archive ------------------------------------------------------------------------------

  private void write(Path target) throws IOException {
    Path parent = target.toAbsolutePath().getParent();
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
