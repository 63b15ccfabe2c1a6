package dev.kvprov.inspect;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvprov.kvp.PoolArchive;
import dev.kvprov.otel.Redactor;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
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
  /** The most one command's output or the journal may add: a bundle goes into a ticket. */
  static final int MAX_PART_BYTES = 32 << 20;

  /**
   * Archives taken of each pool unless {@code --all-archives}: kvprov itself keeps the newest five,
   * so this is every boot kvprov left; more are there only when something else put them there.
   */
  static final int NEWEST_ARCHIVES = 5;

  /**
   * The most pool bytes {@code kvp}'s own commands are given between the pool and its archives:
   * they hold what they read (a tree's spans), so this bounds the bundle's memory.
   */
  static final long MAX_VIEW_BYTES = 64L << 20;

  /** The most a configuration file may be: a few KiB in practice. */
  static final int MAX_CONFIG_BYTES = 1 << 20;

  private static final Pattern TOML_VALUE =
      Pattern.compile("^(\\s*([A-Za-z0-9_.\\-\"]+)\\s*=\\s*)(.+)$");

  /** A key and value in a comment, {@code # password = "…"} or {@code # token: …}. */
  private static final Pattern COMMENTED_VALUE =
      Pattern.compile("(#+\\s*[\"']?([A-Za-z0-9_.\\-]+)[\"']?\\s*[=:]\\s*)(\\S.*)$");

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
          "Every archived boot, not only the newest " + NEWEST_ARCHIVES + " of each pool.")
  boolean allArchives;

  /** What went in, and what could not, in the order it was tried. */
  private final List<String> manifest = new ArrayList<>();

  private final UserNames users = new UserNames();

  /** A pool file taken into the bundle, and its name there. */
  private record Taken(Path file, String name, int pool) {}

  /** Where the bundle's own temporary files go: beside the bundle, never in memory. */
  private Path work;

  private BundleTar tar;
  private int files;

  /** The pool files found, taken or not. */
  private int candidates;

  /** The files of the pool {@code kvp}'s commands read under the root: its pool and archives. */
  private int onDiskForCommands;

  /** The view {@code kvp}'s commands read instead of the root, and the root it stands for. */
  private String viewRoot;

  private String realRoot;

  @Override
  public Integer call() {
    if (input.fromStdin()) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "it bundles files; give it the pool, not stdin");
    }
    Path root =
        input.source != null && input.source.root != null ? input.source.root : Path.of("/");
    boolean live = input.source == null || input.source.root == null;
    boolean given = input.hostExport() || input.source != null && input.source.file != null;
    List<Taken> pools = pools(root);
    if (!live && candidates == 0) {
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
      return 3;
    }
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
    if (redactUsers) {
      learnUsers(root, given, pools);
    }
    PrintWriter out = spec.commandLine().getOut();
    Path parent = target.toAbsolutePath().getParent();
    try {
      work = Files.createTempDirectory(parent, ".kvp-bundle");
      try {
        Path partial = work.resolve("bundle.tar.gz");
        try (OutputStream file = Files.newOutputStream(partial)) {
          try (BundleTar bundle = new BundleTar(file)) {
            tar = bundle;
            parts(root, live, given, pools);
            manifest.forEach(out::println);
            tar.add("MANIFEST.txt", (String.join("\n", manifest) + "\n").getBytes(UTF_8));
            files++;
          }
        }
        Files.setPosixFilePermissions(
            partial, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        Files.move(
            partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } finally {
        removeWork();
      }
    } catch (IOException e) {
      spec.commandLine()
          .getErr()
          .println("kvp bundle: cannot write " + target + ": " + PoolReading.why(e));
      return 3;
    }
    out.println("wrote " + target + " (" + files + " files)");
    return 0;
  }

  private void parts(Path root, boolean live, boolean given, List<Taken> pools) throws IOException {
    for (Taken pool : pools) {
      addPool(pool);
    }
    List<String> inputOptions = inputOptions(root, pools);
    if (inputOptions.isEmpty()) {
      manifest.add(
          "not made: kvp/ (the input is more than "
              + (MAX_FILE_BYTES >> 20)
              + " MiB: more than a pool holds)");
    } else {
      for (List<String> command :
          List.of(
              List.of("report"),
              List.of("tree"),
              List.of("list", "--wide"),
              List.of("doctor"),
              List.of("timeline"))) {
        run(command, String.join("-", command).replace("--", "") + ".txt", inputOptions);
      }
      page(inputOptions);
    }
    if (given) {
      // a file or an export copied from a VM: this machine's state is not that VM's
      manifest.add("not taken: configuration, markers and journal (the input is a file)");
    } else {
      configuration(root);
      markers(root);
      journal(root, live);
    }
  }

  private void removeWork() throws IOException {
    try (Stream<Path> all = Files.walk(work)) {
      for (Path p : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }

  // --- what goes in -----------------------------------------------------------------------------

  /** The pool files to take: looked at (kind, size, no link), not read. */
  private List<Taken> pools(Path root) {
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
      boolean underRoot = input.source != null && input.source.root != null;
      for (int pool = 0; pool <= 3; pool++) {
        Path file = directory.resolve(".kvp_pool_" + pool);
        // Under a root, never through a link that leads out of it: the rule of every --root read.
        java.util.Optional<String> out =
            underRoot
                ? PoolSource.wayOut(root, PoolSource.poolUnderRoot(pool))
                : java.util.Optional.empty();
        if (out.isPresent()) {
          if (!manifest.contains("not read: " + out.get())) {
            manifest.add("not read: " + out.get());
          }
          continue;
        }
        if (Files.exists(file, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
          files.add(file);
          if (pool == input.pool) {
            onDiskForCommands++;
          }
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
                    List<Path> copies = PoolArchive.copies(archives, pool);
                    if (pool == input.pool) {
                      onDiskForCommands += copies.size();
                    }
                    for (Path copy : newest(copies, pool)) {
                      java.util.Optional<String> out =
                          PoolSource.wayOut(root, root.relativize(copy).toString());
                      if (out.isPresent()) {
                        manifest.add("not read: " + out.get());
                      } else {
                        files.add(copy);
                      }
                    }
                  } catch (IOException e) {
                    manifest.add("not read: " + archives + ": " + PoolReading.why(e));
                  }
                }
              });
    }
    boolean given = input.hostExport() || input.source != null && input.source.file != null;
    candidates = files.size();
    List<Taken> taken = new ArrayList<>();
    for (Path file : files) {
      try {
        InputKind kind = given ? givenKind(file) : kindInRoot(file);
        String wrong = input.hostExport() ? exportProblem(kind) : kind.notAPool();
        if (wrong != null) {
          manifest.add("not taken: " + file + ": " + wrong);
          continue;
        }
        boolean archived = file.getParent() != null && file.getParent().endsWith("kvp-archive");
        taken.add(
            new Taken(
                file,
                (archived ? "pools/archive/" : "pools/") + file.getFileName(),
                poolNumber(file.getFileName().toString())));
      } catch (IOException e) {
        manifest.add("not read: " + file + ": " + PoolReading.why(e));
      }
    }
    return taken;
  }

  private static int poolNumber(String name) {
    Matcher m = Pattern.compile("(?:\\.kvp_pool_|^pool)(\\d)").matcher(name);
    return m.find() ? Integer.parseInt(m.group(1)) : -1;
  }

  /** The newest archives of {@code pool}, oldest first, and a line for those left out. */
  private List<Path> newest(List<Path> copies, int pool) {
    if (allArchives || copies.size() <= NEWEST_ARCHIVES) {
      return copies;
    }
    List<Path> left = copies.subList(0, copies.size() - NEWEST_ARCHIVES);
    manifest.add(
        "left out: "
            + left.size()
            + (left.size() == 1 ? " older archive" : " older archives")
            + " of pool "
            + pool
            + " ("
            + left.get(0).getFileName()
            + (left.size() == 1 ? "" : " to " + left.get(left.size() - 1).getFileName())
            + "); --all-archives takes them");
    return copies.subList(copies.size() - NEWEST_ARCHIVES, copies.size());
  }

  /** One pool into the bundle, copied through a file of its own (user names replaced if asked). */
  private void addPool(Taken pool) {
    boolean given = input.hostExport() || input.source != null && input.source.file != null;
    try {
      Path spool = work.resolve("part");
      try (InputStream in =
              given
                  ? Files.newInputStream(pool.file())
                  : Files.newInputStream(pool.file(), java.nio.file.LinkOption.NOFOLLOW_LINKS);
          OutputStream out = Files.newOutputStream(spool)) {
        InputStream capped = new java.io.BufferedInputStream(in);
        if (!redactUsers) {
          copyCapped(capped, out, pool.file());
        } else if (input.hostExport()) {
          try (PartWriter text = new PartWriter(out, users::redact, MAX_FILE_BYTES)) {
            new java.io.InputStreamReader(capped, UTF_8).transferTo(text);
          }
        } else {
          RedactedPool.copy(capped, users, out);
        }
      }
      add(pool.name(), spool, pool.file().toString());
    } catch (IOException e) {
      manifest.add("not read: " + pool.file() + ": " + PoolReading.why(e));
    }
  }

  private static void copyCapped(InputStream in, OutputStream out, Path file) throws IOException {
    byte[] buffer = new byte[1 << 16];
    long total = 0;
    for (int n; (n = in.read(buffer)) > 0; ) {
      total += n;
      if (total > MAX_FILE_BYTES) {
        throw new java.nio.file.FileSystemException(
            file.toString(), null, "grew past " + (MAX_FILE_BYTES >> 20) + " MiB while read");
      }
      out.write(buffer, 0, n);
    }
  }

  /**
   * What {@code kvp}'s own commands are given: the same input as the bundle's. Under a root whose
   * pool or archives were not all taken, a view holding only what was taken, so that they read no
   * more than the bundle holds; empty when the input is too large for them.
   */
  private List<String> inputOptions(Path root, List<Taken> pools) throws IOException {
    if (input.hostExport() || input.source != null && input.source.file != null) {
      Path file = Path.of(input.hostExport() ? input.source.hostXml : input.source.file);
      if (Files.isRegularFile(file) && Files.size(file) > MAX_FILE_BYTES) {
        return List.of();
      }
      return input.hostExport()
          ? List.of("--host-xml", input.source.hostXml)
          : List.of("--file", input.source.file);
    }
    String pool = Integer.toString(input.pool);
    if (input.source == null || input.source.root == null) {
      Path file = input.dir.resolve(".kvp_pool_" + pool);
      if (Files.isRegularFile(file) && Files.size(file) > MAX_FILE_BYTES) {
        return List.of();
      }
      return List.of("--dir", input.dir.toString(), "--pool", pool);
    }
    // kvp's commands hold what they read (a tree's spans): they are given the pool and its
    // newest archives only, even with --all-archives, so that memory stays bounded
    List<Taken> forCommands = new ArrayList<>();
    for (Taken t : pools) {
      if (t.pool() == input.pool) {
        forCommands.add(t);
      }
    }
    List<Taken> archived =
        forCommands.stream().filter(t -> t.name().startsWith("pools/archive/")).toList();
    if (archived.size() > NEWEST_ARCHIVES) {
      List<Taken> older = archived.subList(0, archived.size() - NEWEST_ARCHIVES);
      forCommands.removeAll(older);
      manifest.add(
          "kvp/ reads pool "
              + pool
              + " and its newest "
              + NEWEST_ARCHIVES
              + " archives: "
              + (older.size() == 1 ? "the older one is" : "the " + older.size() + " older ones are")
              + " in pools/archive/ only (read them with kvp --file)");
    }
    // and, newest first, no more than a pool's worth of records between them: a tree of six
    // 60 MiB pools took 380 MB of memory, one of 64 MiB takes under 100
    long bytes = 0;
    for (Taken t : forCommands) {
      bytes += t.name().startsWith("pools/archive/") ? 0 : Files.size(t.file());
    }
    List<Taken> beyond = new ArrayList<>();
    for (int i = forCommands.size() - 1; i >= 0; i--) {
      Taken t = forCommands.get(i);
      if (t.name().startsWith("pools/archive/")) {
        long size = Files.size(t.file());
        if (bytes + size > MAX_VIEW_BYTES) {
          beyond.add(t);
        } else {
          bytes += size;
        }
      }
    }
    if (!beyond.isEmpty()) {
      forCommands.removeAll(beyond);
      manifest.add(
          "kvp/ reads at most "
              + (MAX_VIEW_BYTES >> 20)
              + " MiB of pool "
              + pool
              + ": "
              + (beyond.size() == 1 ? "1 more archive is" : beyond.size() + " more archives are")
              + " in pools/archive/ only (read them with kvp --file)");
    }
    if (forCommands.size() == onDiskForCommands) {
      return List.of("--root", root.toString(), "--pool", pool);
    }
    Path view = Files.createDirectories(work.resolve("kvp-bundle-view"));
    for (Taken t : forCommands) {
      Path in =
          view.resolve(
              t.name().startsWith("pools/archive/")
                  ? "var/lib/kvprov/kvp-archive/" + t.file().getFileName()
                  : "var/lib/hyperv/" + t.file().getFileName());
      Files.createDirectories(in.getParent());
      try {
        Files.createLink(in, t.file());
      } catch (IOException | UnsupportedOperationException e) {
        // another file system: a copy (at most the few pools taken, each at most 64 MiB)
        Files.copy(t.file(), in, java.nio.file.LinkOption.NOFOLLOW_LINKS);
      }
    }
    viewRoot = view.toString();
    realRoot = root.toString();
    return List.of("--root", viewRoot, "--pool", pool);
  }

  /** One of kvp's own commands on the same input, its output as a file of the bundle. */
  private void run(List<String> command, String name, List<String> inputOptions) {
    List<String> args = new ArrayList<>(command);
    args.addAll(inputOptions);
    Path spool = work.resolve("part");
    Path err = work.resolve("stderr");
    try {
      int exit;
      boolean cut;
      try (OutputStream file = Files.newOutputStream(spool);
          OutputStream errFile = Files.newOutputStream(err)) {
        PartWriter text = new PartWriter(file, this::plain, MAX_PART_BYTES);
        text.write("$ kvp " + plain(String.join(" ", args)) + "\n");
        PrintWriter stdout = new PrintWriter(text, true);
        PrintWriter stderr =
            new PrintWriter(new PartWriter(errFile, this::plain, MAX_PART_BYTES), true);
        CommandLine cli = KvpCommand.commandLine(args.toArray(String[]::new));
        cli.setOut(stdout);
        cli.setErr(stderr);
        exit = cli.execute(args.toArray(String[]::new));
        stdout.close();
        stderr.close();
        cut = text.cut();
        if (Files.size(err) > 0) {
          file.write("--- stderr\n".getBytes(UTF_8));
          Files.copy(err, file);
        }
        file.write(("--- exit status " + exit + "\n").getBytes(UTF_8));
      }
      add("kvp/" + name, spool, "kvp " + String.join(" ", command) + (cut ? ", cut" : ""));
    } catch (IOException e) {
      manifest.add("not made: kvp/" + name + ": " + PoolReading.why(e));
    }
  }

  /**
   * A line as a file of the bundle shows it: no terminal colours (they mean nothing in a file), the
   * rescued disk's paths for the view's, and user names replaced when asked.
   */
  private String plain(String line) {
    String text = line.replaceAll("\u001b\\[[0-9;]*m", "");
    if (viewRoot != null) {
      text = text.replace(viewRoot, realRoot);
    }
    return redact(text);
  }

  private void page(List<String> inputOptions) {
    try {
      Path page = work.resolve("timeline.html");
      List<String> args = new ArrayList<>(List.of("timeline", "--html", page.toString()));
      args.addAll(inputOptions);
      CommandLine cli = KvpCommand.commandLine(args.toArray(String[]::new));
      cli.setOut(new PrintWriter(Writer.nullWriter()));
      cli.setErr(new PrintWriter(Writer.nullWriter()));
      if (cli.execute(args.toArray(String[]::new)) == 0) {
        Path spool = work.resolve("part");
        try (java.io.Reader in = Files.newBufferedReader(page, UTF_8);
            OutputStream file = Files.newOutputStream(spool);
            PartWriter text = new PartWriter(file, this::plain, MAX_PART_BYTES)) {
          in.transferTo(text);
        }
        add("kvp/timeline.html", spool, "timeline page");
      } else {
        manifest.add("not made: the timeline page (kvp timeline --html failed)");
      }
    } catch (IOException e) {
      manifest.add("not made: the timeline page: " + PoolReading.why(e));
    }
  }

  /** kvprov's (and azure-init's) configuration files, values of secret-looking keys masked. */
  private void configuration(Path root) {
    boolean any = false;
    for (String directory : List.of("etc/kvprov", "etc/azure-init")) {
      Path dir = root.resolve(directory);
      if (!inside(root, directory) || !Files.isDirectory(dir)) {
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
              redact(maskSecrets(new String(readInRoot(file, MAX_CONFIG_BYTES), UTF_8)))
                  .getBytes(UTF_8),
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
      String masked = maskCommented(line);
      masked = URL_CREDENTIALS.matcher(masked).replaceAll("://" + Redactor.MASK + "@");
      b.append(SECRET_PARAMETER.matcher(masked).replaceAll("$1" + Redactor.MASK)).append('\n');
    }
    return b.substring(0, b.length() - 1);
  }

  /**
   * A line with a secret-looking key and value in its comment masked: a setting commented out (or a
   * note beside one) is as secret as the setting.
   */
  private static String maskCommented(String line) {
    int hash = commentStart(line);
    if (hash < 0) {
      return line;
    }
    Matcher m = COMMENTED_VALUE.matcher(line).region(hash, line.length());
    if (m.find() && Redactor.isSecretKey(m.group(2))) {
      return line.substring(0, m.start(3)) + "\"" + Redactor.MASK + "\"";
    }
    return line;
  }

  /** Where the comment of a TOML line starts (a {@code #} outside quotes), or -1. */
  private static int commentStart(String line) {
    char quote = 0;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quote != 0) {
        if (c == '\\' && quote == '"') {
          i++;
        } else if (c == quote) {
          quote = 0;
        }
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '#') {
        return i;
      }
    }
    return -1;
  }

  /** The most one file may add: pools are a few MiB. */
  static final int MAX_FILE_BYTES = 64 << 20;

  /**
   * A file of the image, read only when it is a regular file that is no link (on a rescued disk, a
   * link leads into the rescue machine, which is not the ticket's), and not too large.
   */
  private static byte[] readInRoot(Path file, int max) throws IOException {
    java.nio.file.attribute.BasicFileAttributes a = plainFile(file);
    if (a.size() > max) {
      throw new java.nio.file.FileSystemException(
          file.toString(), null, a.size() + " bytes: more than such a file holds");
    }
    try (InputStream in = Files.newInputStream(file, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      return in.readNBytes(max);
    }
  }

  /**
   * {@code file}'s attributes, when it is a regular file and no link; else why not, as an exception
   * naming it. Links are never followed: on a rescued disk they lead into the rescue machine.
   */
  private static java.nio.file.attribute.BasicFileAttributes plainFile(Path file)
      throws IOException {
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
    return a;
  }

  /**
   * What a pool file of the image is (looked at, not read): a regular file, no link, not too large.
   */
  private static InputKind kindInRoot(Path file) throws IOException {
    java.nio.file.attribute.BasicFileAttributes a = plainFile(file);
    return head(file, a.size(), java.nio.file.LinkOption.NOFOLLOW_LINKS);
  }

  /**
   * What a file named on the command line is: links followed, but a regular file, not too large.
   */
  private static InputKind givenKind(Path file) throws IOException {
    PoolSource.requireRegularFile(file);
    return head(file, Files.size(file));
  }

  private static InputKind head(Path file, long size, java.nio.file.OpenOption... options)
      throws IOException {
    if (size > MAX_FILE_BYTES) {
      throw new java.nio.file.FileSystemException(
          file.toString(), null, size + " bytes: more than a pool or an export holds");
    }
    try (InputStream in = Files.newInputStream(file, options)) {
      byte[] head = in.readNBytes(InputKind.HEAD_BYTES);
      return InputKind.of(head, head.length);
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
    if (!inside(root, "var/lib/kvprov")) {
      return;
    }
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
      if (!inside(root, "var/log/journal")) {
        return;
      }
      if (!Files.isDirectory(logs)) {
        manifest.add("no journal: " + logs + " does not exist (a volatile journal, or none)");
        return;
      }
      command.addAll(List.of("-D", logs.toString(), "-u", "kvprov.service"));
    }
    command.addAll(List.of("--no-pager", "-o", "short-iso-precise"));
    try {
      Path captured = work.resolve("journal");
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
      Path spool = work.resolve("part");
      try (java.io.Reader in = Files.newBufferedReader(captured, UTF_8);
          OutputStream file = Files.newOutputStream(spool);
          PartWriter text = new PartWriter(file, this::redact, MAX_PART_BYTES)) {
        in.transferTo(text);
        if (!ended) {
          text.write("\n[journalctl did not end within 20 s: cut there]\n");
        }
      }
      Files.delete(captured);
      add("journal/kvprov.service.txt", spool, String.join(" ", command));
    } catch (IOException e) {
      manifest.add("no journal: " + PoolReading.why(e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      manifest.add("no journal: interrupted");
    }
  }

  /**
   * Whether {@code relative} under the root may be read: no link on the way leads out of it (on a
   * rescued disk, into the rescue machine's own files). If one does, the manifest says so.
   */
  private boolean inside(Path root, String relative) {
    java.util.Optional<String> out = PoolSource.wayOut(root, relative);
    out.map(why -> "not read: " + why)
        .filter(line -> !manifest.contains(line))
        .ifPresent(manifest::add);
    return out.isEmpty();
  }

  private void add(String name, byte[] bytes, String from) throws IOException {
    tar.add(name, bytes);
    files++;
    manifest.add("added " + name + " (" + bytes.length + " bytes, from " + from + ")");
  }

  /** A file made in the work directory into the bundle; it is then removed. */
  private void add(String name, Path made, String from) throws IOException {
    long size = Files.size(made);
    tar.add(name, made);
    files++;
    Files.delete(made);
    manifest.add("added " + name + " (" + size + " bytes, from " + from + ")");
  }

  // --- user names -------------------------------------------------------------------------------

  /**
   * Every user name to replace, before anything is written: the image's accounts (uid 1000 and up),
   * and every name the pools' records give (span attributes, checks that refused the metadata's
   * name, the media's, reports, commands run), for a run that failed before the user was made
   * leaves the name nowhere else.
   */
  private void learnUsers(Path root, boolean given, List<Taken> pools) {
    if (!given && inside(root, "etc/passwd")) {
      Path passwd = root.resolve("etc/passwd");
      try {
        users.learnAccounts(passwd);
      } catch (IOException e) {
        manifest.add(
            "not read: "
                + passwd
                + ": "
                + PoolReading.why(e)
                + " (names taken from the pools only)");
      }
    }
    for (Taken pool : pools) {
      PoolSource source =
          input.hostExport()
              ? PoolSource.hostExport(pool.file().toString())
              : new PoolSource(pool.file().toString(), PoolSource.Kind.POOL_FILE, pool.file());
      // items, not records: a value split over records may be split inside a name
      Items items = new Items(this::learnUsers);
      try {
        source.scan(
            InputStream.nullInputStream(),
            new dev.kvprov.kvp.PoolVisitor() {
              @Override
              public void entry(dev.kvprov.kvp.PoolEntry entry) {
                users.learn(entry.key());
                items.entry(entry);
              }

              @Override
              public void entry(dev.kvprov.kvp.PoolEntry entry, java.nio.ByteBuffer value) {
                users.learn(entry.key());
                items.entry(entry, value);
              }

              @Override
              public void problem(dev.kvprov.kvp.KvpProblem problem) {
                items.problem(problem);
              }
            });
        items.finish();
      } catch (IOException e) {
        manifest.add("not read for user names: " + pool.file() + ": " + PoolReading.why(e));
      }
    }
    manifest.add("user names replaced by hashes: " + users.size());
  }

  /** The names one item gives: its value, and an azure-init payload's decoded text. */
  private void learnUsers(Item item) {
    users.learn(item.key());
    users.learn(item.value());
    DiagKey key = DiagKey.ofItem(item.key());
    if (key != null && !key.encoding().equals("none")) {
      String text =
          AzureInitDiagWriter.decode(
              key.encoding(), item.value(), AzureInitDiagWriter.SHOWN_BYTES, new ArrayList<>());
      if (text != null) {
        users.learn(text);
      }
    }
  }

  static String hash(String name) {
    return UserNames.hash(name);
  }

  private String redact(String text) {
    return redactUsers ? users.redact(text) : text;
  }
}
