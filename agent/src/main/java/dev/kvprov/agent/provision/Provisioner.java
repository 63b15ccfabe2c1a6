package dev.kvprov.agent.provision;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import dev.kvprov.agent.os.AccountRepair;
import dev.kvprov.agent.os.AtomicFiles;
import dev.kvprov.agent.os.CommandResult;
import dev.kvprov.agent.os.CommandRunner;
import dev.kvprov.agent.os.Names;
import dev.kvprov.agent.os.Passwd;
import dev.kvprov.agent.os.SystemRoot;
import dev.kvprov.agent.ovf.Secret;
import dev.kvprov.kvp.BootClock;
import dev.kvprov.kvp.IoErrors;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.commons.codec.digest.Sha2Crypt;

/**
 * The OS side of provisioning — host name, admin user, password, sudoers, sshd's password setting,
 * SSH keys — as a small library: build it with what the platform asked for, then {@link
 * #provision()}. Each step is a span with its inputs (never a secret) and outcome; every command
 * goes through the {@link CommandRunner}; a failure names the step, the command, its exit status
 * and stderr. Running it twice changes nothing the second time.
 */
public final class Provisioner {
  private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(2);
  private static final Pattern PASSWORD_DIRECTIVE =
      Pattern.compile("^\\s*PasswordAuthentication[\\s=]+.*$", Pattern.CASE_INSENSITIVE);
  private static final Pattern INCLUDES_DROP_INS =
      Pattern.compile(
          "^\\s*Include\\s+\\S*sshd_config\\.d/\\S*\\.conf\\s*$",
          Pattern.CASE_INSENSITIVE | Pattern.MULTILINE);

  private final SystemRoot root;
  private final CommandRunner runner;
  private final Tracer tracer;
  private final String hostname;
  private final String user;
  private final List<String> groups;
  private final Optional<Secret> password;
  private final boolean passwordAuthentication;
  private final List<SshKey> keys;
  private final String authorizedKeysFile;
  private final boolean querySshd;

  private Provisioner(Builder b) {
    this.querySshd = b.querySshd;
    this.root = b.root;
    this.runner = b.runner;
    this.tracer = b.tracer;
    this.hostname = b.hostname;
    this.user = b.user;
    this.groups = List.copyOf(b.groups);
    this.password = b.password;
    this.passwordAuthentication = b.passwordAuthentication;
    this.keys = List.copyOf(b.keys);
    this.authorizedKeysFile = b.authorizedKeysFile;
  }

  /** What to provision: the host name and the admin user are required. */
  public static Builder builder(SystemRoot root, CommandRunner runner, Tracer tracer) {
    return new Builder(root, runner, tracer);
  }

  /** Runs every step, in order, stopping at the first failure. */
  public void provision() throws ProvisioningException, InterruptedException {
    step("hostname", "Hostname setup failed", this::hostname);
    step("user", "User creation failed", this::user);
    step("password", "Password setup failed", this::password);
    step("sudoers", "Sudoers setup failed", this::sudoers);
    step("sshd", "SSH configuration failed", this::sshd);
    step("ssh_keys", "SSH key setup failed", this::sshKeys);
  }

  private interface Step {
    void run(Span span) throws ProvisioningException, IOException, InterruptedException;
  }

  private void step(String name, String reason, Step step)
      throws ProvisioningException, InterruptedException {
    Span span =
        tracer
            .spanBuilder("provision." + name)
            .setAttribute("root", root.path().toString())
            .startSpan();
    try (Scope ignored = span.makeCurrent()) {
      step.run(span);
    } catch (ProvisioningException e) {
      span.setStatus(StatusCode.ERROR, e.detail());
      throw e;
    } catch (IOException | java.io.UncheckedIOException e) {
      IOException io =
          e instanceof IOException i ? i : ((java.io.UncheckedIOException) e).getCause();
      span.setStatus(StatusCode.ERROR, IoErrors.describe(io));
      throw new ProvisioningException(name, reason, IoErrors.describe(io), io);
    } finally {
      span.end();
    }
  }

  // ---- host name ------------------------------------------------------------------------------

  private void hostname(Span span) throws ProvisioningException, IOException, InterruptedException {
    span.setAttribute("hostname", hostname);
    Optional<String> problem = Names.hostProblem(hostname);
    if (problem.isPresent()) {
      throw new ProvisioningException("hostname", "Hostname setup failed", problem.get());
    }
    if (root.isLive()
        && Files.isDirectory(Path.of("/run/systemd/system"))
        && onPath("hostnamectl")) {
      CommandResult result =
          runner.run(List.of("hostnamectl", "set-hostname", hostname), COMMAND_TIMEOUT);
      if (result.succeeded()) {
        return;
      }
      // hostnamed not usable (masked, or D-Bus not up yet): set it the plain way below.
      span.addEvent("hostnamectl failed (" + result.summary() + "); writing /etc/hostname instead");
    }
    Path file = root.resolve("/etc/hostname");
    if (Files.exists(file) && Files.readString(file).strip().equals(hostname)) {
      span.setAttribute("changed", false);
    } else {
      AtomicFiles.write(file, hostname + "\n", "rw-r--r--", -1, -1);
      span.setAttribute("changed", true);
    }
    if (root.isLive()) {
      run("hostname", "Hostname setup failed", List.of("hostname", hostname));
    }
  }

  // ---- user -----------------------------------------------------------------------------------

  private void user(Span span) throws ProvisioningException, IOException, InterruptedException {
    span.setAttribute("user", String.valueOf(user));
    Optional<String> problem = Names.userProblem(user);
    if (problem.isPresent()) {
      throw new ProvisioningException("user", "User creation failed", problem.get());
    }
    // shadow-utils with --prefix follows the image's links as this machine sees them.
    for (String file : List.of("/etc/passwd", "/etc/shadow", "/etc/group", "/etc/gshadow")) {
      root.requireNoWayOut(file);
    }
    root.requireNoWayOut("/home/" + user);
    // A crash in an earlier run (useradd killed between its files) must not fail this one.
    for (String repair : AccountRepair.repair(root, user, bootTime())) {
      span.addEvent(repair);
    }
    List<String> present = existingGroups();
    span.setAttribute(io.opentelemetry.api.common.AttributeKey.stringArrayKey("groups"), present);
    Optional<Passwd> existing = Passwd.lookup(root, user);
    List<String> argv = new ArrayList<>();
    if (existing.isEmpty()) {
      argv.add("useradd");
      argv.addAll(root.prefixArguments());
      argv.addAll(List.of("-m", "-d", "/home/" + user));
      if (Files.isExecutable(root.resolve("/bin/bash"))) {
        argv.addAll(List.of("-s", "/bin/bash"));
      }
      if (!present.isEmpty()) {
        argv.addAll(List.of("-G", String.join(",", present)));
      }
      argv.add(user);
      span.setAttribute("created", true);
      run("user", "User creation failed", argv);
    } else if (existing.get().uid() < uidMin()) {
      throw new ProvisioningException(
          "user",
          "User creation failed",
          "user name '"
              + user
              + "' is an existing system account (uid "
              + existing.get().uid()
              + ")");
    } else {
      span.setAttribute("created", false);
      present = present.stream().filter(g -> !isMember(g)).toList();
      if (!present.isEmpty()) {
        argv.add("usermod");
        argv.addAll(root.prefixArguments());
        argv.addAll(List.of("-a", "-G", String.join(",", present), user));
        run("user", "User creation failed", argv);
      }
      Path home = root.resolve(existing.get().home());
      if (!Files.isDirectory(home)) {
        Files.createDirectories(home);
        Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwxr-x---"));
        Files.setAttribute(home, "unix:uid", existing.get().uid());
        Files.setAttribute(home, "unix:gid", existing.get().gid());
      }
    }
  }

  /** When this machine booted; the epoch when that cannot be read (then only dead owners count). */
  private static Instant bootTime() {
    try {
      return BootClock.read(Path.of("/")).bootTime();
    } catch (IOException e) {
      return Instant.EPOCH;
    }
  }

  /** The first uid of ordinary users: UID_MIN in the target's login.defs, else 1000. */
  private int uidMin() {
    try {
      for (String line : Files.readAllLines(root.resolve("/etc/login.defs"))) {
        String[] f = line.strip().split("\\s+");
        if (f.length == 2 && f[0].equals("UID_MIN")) {
          return Integer.parseInt(f[1]);
        }
      }
    } catch (IOException | NumberFormatException e) {
      // no login.defs in the target: the usual default
    }
    return 1000;
  }

  private boolean isMember(String group) {
    try {
      for (String line : Files.readAllLines(root.resolve("/etc/group"))) {
        String[] f = line.split(":", -1);
        if (f.length >= 4 && f[0].equals(group)) {
          return Arrays.asList(f[3].split(",")).contains(user);
        }
      }
    } catch (IOException e) {
      return false;
    }
    return false;
  }

  /** The user's current password hash in the target's shadow file, or empty. */
  private String shadowHash() throws IOException {
    Path shadow = root.resolve("/etc/shadow");
    if (!Files.exists(shadow)) {
      return "";
    }
    for (String line : Files.readAllLines(shadow)) {
      String[] f = line.split(":", -1);
      if (f.length > 1 && f[0].equals(user)) {
        return f[1];
      }
    }
    return "";
  }

  /** The configured groups that the target system has; useradd refuses unknown ones. */
  private List<String> existingGroups() throws IOException {
    Path groupFile = root.resolve("/etc/group");
    Set<String> known = new LinkedHashSet<>();
    if (Files.exists(groupFile)) {
      for (String line : Files.readAllLines(groupFile)) {
        known.add(line.split(":", 2)[0]);
      }
    }
    return groups.stream().filter(known::contains).toList();
  }

  // ---- password -------------------------------------------------------------------------------

  private void password(Span span) throws ProvisioningException, IOException, InterruptedException {
    List<String> argv = new ArrayList<>(List.of("usermod"));
    argv.addAll(root.prefixArguments());
    String current = shadowHash();
    if (password.isEmpty()) {
      span.setAttribute("password", "locked");
      if (current.startsWith("!") || current.equals("*")) {
        span.setAttribute("changed", false);
        return;
      }
      argv.addAll(List.of("-L", user));
      run("password", "Password setup failed", argv);
      return;
    }
    span.setAttribute("password", "set");
    char[] chars = password.get().copy();
    byte[] bytes = new String(chars).getBytes(UTF_8);
    String hash;
    try {
      if (current.startsWith("$6$") && Sha2Crypt.sha512Crypt(bytes, current).equals(current)) {
        span.setAttribute("changed", false); // already this password: keep the hash (and its salt)
        return;
      }
      hash = Sha2Crypt.sha512Crypt(bytes);
    } finally {
      Arrays.fill(chars, '\0');
      Arrays.fill(bytes, (byte) 0);
    }
    // Not even the hash goes on a command line (any local user can read those in /proc): on the
    // live system chpasswd reads it from stdin; in an image root the shadow file is edited.
    if (root.isLive()) {
      run(
          "password",
          "Password setup failed",
          List.of("chpasswd", "-e"),
          (user + ":" + hash + "\n").getBytes(UTF_8));
    } else {
      setShadowHash(hash);
    }
  }

  /** Sets the user's hash in the target's shadow file, atomically, keeping its mode and owner. */
  private void setShadowHash(String hash) throws ProvisioningException, IOException {
    Path shadow = root.resolve("/etc/shadow");
    List<String> lines = new ArrayList<>(Files.readAllLines(shadow));
    boolean found = false;
    long today = java.time.LocalDate.now(java.time.ZoneOffset.UTC).toEpochDay();
    for (int i = 0; i < lines.size(); i++) {
      String[] f = lines.get(i).split(":", -1);
      if (f.length >= 3 && f[0].equals(user)) {
        f[1] = hash;
        f[2] = String.valueOf(today);
        lines.set(i, String.join(":", f));
        found = true;
      }
    }
    if (!found) {
      throw new ProvisioningException(
          "password", "Password setup failed", "no shadow entry for " + user);
    }
    String mode = PosixFilePermissions.toString(Files.getPosixFilePermissions(shadow));
    int uid = (Integer) Files.getAttribute(shadow, "unix:uid");
    int gid = (Integer) Files.getAttribute(shadow, "unix:gid");
    AtomicFiles.write(shadow, String.join("\n", lines) + "\n", mode, uid, gid);
  }

  // ---- sudoers --------------------------------------------------------------------------------

  private void sudoers(Span span) throws ProvisioningException, IOException, InterruptedException {
    String rule = user + " ALL=(ALL) " + (password.isPresent() ? "ALL" : "NOPASSWD: ALL") + "\n";
    // sudo skips drop-ins whose names contain a dot: spell it out, one-to-one ("a.b" and "a_b"
    // must not share a file).
    Path file =
        root.resolve("/etc/sudoers.d/90-kvprov-" + user.replace("_", "_u").replace(".", "_d"));
    span.setAttribute("file", file.toString());
    if (Files.exists(file) && Files.readString(file).equals(rule)) {
      span.setAttribute("changed", false);
      return;
    }
    Path check = root.resolve("/etc/sudoers.d/.kvprov-check");
    AtomicFiles.write(check, rule, "r--r-----", -1, -1);
    try {
      if (onPath("visudo")) {
        run(
            "sudoers",
            "Sudoers setup failed",
            List.of("visudo", "-c", "-q", "-f", check.toString()));
      }
    } finally {
      Files.deleteIfExists(check);
    }
    AtomicFiles.write(file, rule, "r--r-----", -1, -1);
    span.setAttribute("changed", true);
  }

  // ---- sshd -----------------------------------------------------------------------------------

  private void sshd(Span span) throws ProvisioningException, IOException, InterruptedException {
    String directive = "PasswordAuthentication " + (passwordAuthentication ? "yes" : "no");
    span.setAttribute("directive", directive);
    Path main = root.resolve("/etc/ssh/sshd_config");
    String config = Files.exists(main) ? Files.readString(main) : "";
    Path target;
    String content;
    if (INCLUDES_DROP_INS.matcher(config).find()) {
      // Named to sort first: for this directive sshd keeps the first value it reads.
      target = root.resolve("/etc/ssh/sshd_config.d/00-kvprov.conf");
      content = directive + "\n";
    } else {
      target = main;
      content = withDirective(config, directive);
    }
    span.setAttribute("file", target.toString());
    boolean unchanged = Files.exists(target) && Files.readString(target).equals(content);
    span.setAttribute("changed", !unchanged);
    // Checked before it takes effect, and checked again when unchanged: a broken file left by an
    // earlier run must not pass for a good one.
    Path candidate = unchanged ? target : target.resolveSibling(".kvprov-candidate");
    try {
      if (!unchanged) {
        AtomicFiles.write(candidate, content, "rw-r--r--", -1, -1);
      }
      if (onPath("sshd")) {
        validateSshd(candidate, span);
      }
      if (!unchanged) {
        AtomicFiles.write(target, content, "rw-r--r--", -1, -1);
      }
    } finally {
      if (!unchanged) {
        Files.deleteIfExists(candidate);
      }
    }
    if (!unchanged && root.isLive() && onPath("systemctl")) {
      for (String unit : List.of("ssh", "sshd")) {
        CommandResult active =
            runner.run(List.of("systemctl", "is-active", "--quiet", unit), COMMAND_TIMEOUT);
        if (active.succeeded()) {
          run("sshd", "SSH configuration failed", List.of("systemctl", "reload", unit));
          break;
        }
      }
    }
  }

  /**
   * On the running system at first boot, {@code /run/sshd} does not exist yet: ssh.service makes it
   * (its RuntimeDirectory) and starts after kvprov. sshd checks nothing without it, so kvprov makes
   * it as the service would, root's, mode 0755: the check then really runs.
   */
  private void privilegeSeparationDirectory(Span span) {
    Path directory = Path.of("/run/sshd");
    if (!root.isLive() || Files.exists(directory, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try {
      Files.createDirectory(
          directory,
          java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
              java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x")));
      Files.setPosixFilePermissions(
          directory, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
      span.addEvent("made /run/sshd, sshd's runtime directory, for sshd -t");
    } catch (IOException e) {
      span.addEvent("could not make /run/sshd: " + IoErrors.reason(e));
    }
  }

  /**
   * {@code sshd -t} on what was written. An image or demo root has no host keys, so one is made for
   * the check and thrown away. Where sshd cannot run a check at all (no privilege separation
   * directory, as on a build machine), that is recorded, not failed.
   */
  private void validateSshd(Path written, Span span)
      throws ProvisioningException, IOException, InterruptedException {
    List<String> check = new ArrayList<>(List.of("sshd", "-t", "-f", written.toString()));
    privilegeSeparationDirectory(span);
    Path keyDir = null;
    if (!root.isLive()) {
      if (onPath("ssh-keygen")) {
        keyDir = Files.createTempDirectory("kvprov-sshd-check");
        Path key = keyDir.resolve("host_key");
        CommandResult made =
            runner.run(
                List.of("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key.toString()),
                COMMAND_TIMEOUT);
        if (made.succeeded()) {
          check.addAll(List.of("-h", key.toString()));
        }
      }
    }
    try {
      CommandResult result = runner.run(check, COMMAND_TIMEOUT);
      if (!result.succeeded()) {
        // sshd refuses to check anything when its privilege separation directory is missing or
        // not root's (a build machine; a user namespace, where root's files show as nobody's):
        // that says nothing about our configuration.
        if (result.stderr().contains("Missing privilege separation directory")
            || result.stderr().contains("/run/sshd must be owned by root")) {
          span.addEvent("sshd cannot check configurations here: " + result.summary());
          return;
        }
        throw new ProvisioningException(
            "sshd", "SSH configuration failed", "sshd failed: " + result.summary());
      }
    } finally {
      if (keyDir != null) {
        try (java.util.stream.Stream<Path> files = Files.list(keyDir)) {
          for (Path f : files.toList()) {
            Files.deleteIfExists(f);
          }
        }
        Files.deleteIfExists(keyDir);
      }
    }
  }

  /**
   * {@code config} with exactly one active {@code PasswordAuthentication} line, set to {@code
   * directive}: the first active one is replaced in place, later ones removed, commented examples
   * left alone; with none, it goes before the first {@code Match} block (or at the end).
   */
  static String withDirective(String config, String directive) {
    List<String> lines = new ArrayList<>(config.lines().toList());
    int firstMatch = lines.size();
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).strip().toLowerCase(java.util.Locale.ROOT).startsWith("match ")) {
        firstMatch = i;
        break;
      }
    }
    boolean placed = false;
    // Only the global part: a Match block's own setting is the administrator's exception.
    for (int i = 0; i < firstMatch; i++) {
      if (PASSWORD_DIRECTIVE.matcher(lines.get(i)).matches()
          && !lines.get(i).strip().startsWith("#")) {
        if (placed) {
          lines.remove(i--);
          firstMatch--;
        } else {
          lines.set(i, directive);
          placed = true;
        }
      }
    }
    if (!placed) {
      lines.add(firstMatch, directive);
    }
    return String.join("\n", lines) + "\n";
  }

  // ---- SSH keys -------------------------------------------------------------------------------

  private void sshKeys(Span span) throws ProvisioningException, IOException, InterruptedException {
    span.setAttribute("keys", (long) keys.size());
    if (keys.isEmpty()) {
      return;
    }
    Passwd entry =
        Passwd.lookup(root, user)
            .orElseThrow(
                () ->
                    new ProvisioningException(
                        "ssh_keys", "SSH key setup failed", "no passwd entry for " + user));
    String home = entry.home();
    String pattern = authorizedKeysFile;
    if (querySshd && root.isLive() && onPath("sshd")) {
      Optional<String> asked = AuthorizedKeysFile.query(runner, user, hostname);
      span.setAttribute(
          "authorized_keys_file.source", asked.isPresent() ? "sshd -T" : "configuration");
      pattern = asked.orElse(authorizedKeysFile);
    }
    Path defaultFile = Path.of(home).resolve(expand(pattern, home)).normalize();
    java.util.Map<Path, List<String>> byFile = new java.util.LinkedHashMap<>();
    for (SshKey key : keys) {
      Optional<String> bad = Names.sshKeyProblem(key.keyData());
      if (bad.isPresent()) {
        throw new ProvisioningException("ssh_keys", "SSH key setup failed", bad.get());
      }
      if (key.path().isPresent() && Names.hasControlCharacter(key.path().get())) {
        throw new ProvisioningException(
            "ssh_keys", "SSH key setup failed", "a key path holds a control character");
      }
      Path target = defaultFile;
      if (key.path().isPresent()) {
        Path asked = Path.of(key.path().get()).normalize();
        if (!asked.isAbsolute()
            || !asked.startsWith(Path.of(home))
            || asked.equals(Path.of(home))) {
          throw new ProvisioningException(
              "ssh_keys",
              "SSH key setup failed",
              "the key path " + key.path().get() + " is not inside " + user + "'s home " + home);
        }
        target = asked;
      }
      byFile.computeIfAbsent(target, t -> new ArrayList<>()).add(key.keyData().strip());
    }
    for (var entryFile : byFile.entrySet()) {
      install(entry, entryFile.getKey(), entryFile.getValue(), span);
    }
  }

  private void install(Passwd entry, Path file, List<String> add, Span span) throws IOException {
    Path home = root.resolve(entry.home());
    Path inHome = Path.of(entry.home()).relativize(file);
    Path target;
    if (file.startsWith(entry.home()) && !inHome.toString().isEmpty()) {
      // The user can plant links in the home, so none below it is followed (the image's own
      // links, up to the home, are the administrator's and are followed inside the root).
      target = SystemRoot.noLinksBelow(home, home.resolve(inHome.toString()));
    } else {
      target = root.resolve(file.toString());
    }
    // Every directory from the home down to the file: 0700, the user's.
    Path dir = target.getParent();
    List<Path> dirs = new ArrayList<>();
    for (Path d = dir; d != null && d.startsWith(home) && !d.equals(home); d = d.getParent()) {
      dirs.add(0, d);
    }
    for (Path d : dirs) {
      if (!Files.isDirectory(d)) {
        Files.createDirectory(d);
      }
      Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwx------"));
      chown(d, entry, span);
    }
    if (Files.exists(target, java.nio.file.LinkOption.NOFOLLOW_LINKS)
        && !Files.isRegularFile(target, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      throw new IOException(target + " is not a regular file; refusing to touch it");
    }
    List<String> lines =
        Files.exists(target) ? new ArrayList<>(Files.readAllLines(target)) : new ArrayList<>();
    Set<String> present = new java.util.HashSet<>();
    lines.forEach(l -> present.add(l.strip()));
    int added = 0;
    for (String key : add) {
      if (present.add(key)) {
        lines.add(key);
        added++;
      }
    }
    span.setAttribute("added." + file.getFileName(), (long) added);
    if (added > 0 || !Files.exists(target)) {
      AtomicFiles.write(target, String.join("\n", lines) + "\n", "rw-------", -1, -1);
    } else {
      Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-------"));
    }
    chown(target, entry, span); // also mends a file left with the wrong owner
  }

  /**
   * Gives {@code path} to the user. In a user namespace (the demo as an ordinary user) the user's
   * uid has no mapping and the kernel refuses with EINVAL: on a root other than the live one that
   * is recorded, not failed; everywhere else it is an error.
   */
  private void chown(Path path, Passwd entry, Span span) throws IOException {
    try {
      Files.setAttribute(path, "unix:uid", entry.uid());
      Files.setAttribute(path, "unix:gid", entry.gid());
    } catch (java.nio.file.FileSystemException e) {
      if (root.isLive() || e.getReason() == null || !e.getReason().contains("Invalid argument")) {
        throw e;
      }
      span.addEvent(
          "ownership of "
              + path
              + " left as it is: uid "
              + entry.uid()
              + " has no mapping here (user namespace)");
    }
  }

  /** {@code AuthorizedKeysFile} tokens: {@code %h} home, {@code %u} user, {@code %%} a percent. */
  String expand(String pattern, String home) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < pattern.length(); i++) {
      char c = pattern.charAt(i);
      if (c == '%' && i + 1 < pattern.length()) {
        char t = pattern.charAt(++i);
        out.append(t == 'h' ? home : t == 'u' ? user : t == '%' ? "%" : "%" + t);
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  // ---- commands -------------------------------------------------------------------------------

  private void run(String step, String reason, List<String> argv)
      throws ProvisioningException, InterruptedException {
    run(step, reason, argv, new byte[0]);
  }

  private void run(String step, String reason, List<String> argv, byte[] stdin)
      throws ProvisioningException, InterruptedException {
    CommandResult result;
    try {
      result = runner.run(argv, stdin, COMMAND_TIMEOUT);
    } catch (IOException e) {
      throw new ProvisioningException(
          step, reason, argv.get(0) + " could not run: " + e.getMessage(), e);
    }
    if (!result.succeeded()) {
      throw new ProvisioningException(step, reason, argv.get(0) + " failed: " + result.summary());
    }
  }

  private static boolean onPath(String command) {
    for (String dir :
        System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin").split(":")) {
      if (Files.isExecutable(Path.of(dir, command))) {
        return true;
      }
    }
    return Files.isExecutable(Path.of("/usr/sbin", command))
        || Files.isExecutable(Path.of("/sbin", command));
  }

  /** What to provision. */
  public static final class Builder {
    private final SystemRoot root;
    private final CommandRunner runner;
    private final Tracer tracer;
    private String hostname;
    private String user;
    private List<String> groups = List.of("adm", "sudo");
    private Optional<Secret> password = Optional.empty();
    private boolean passwordAuthentication;
    private List<SshKey> keys = List.of();
    private String authorizedKeysFile = ".ssh/authorized_keys";
    private boolean querySshd = true;

    private Builder(SystemRoot root, CommandRunner runner, Tracer tracer) {
      this.root = requireNonNull(root, "root");
      this.runner = requireNonNull(runner, "runner");
      this.tracer = requireNonNull(tracer, "tracer");
    }

    public Builder hostname(String hostname) {
      this.hostname = hostname;
      return this;
    }

    public Builder user(String user) {
      this.user = user;
      return this;
    }

    /** Supplementary groups for the admin user; those the system lacks are skipped. */
    public Builder groups(List<String> groups) {
      this.groups = List.copyOf(groups);
      return this;
    }

    /** The admin password; without one the account's password is locked. */
    public Builder password(Optional<Secret> password) {
      this.password = requireNonNull(password, "password");
      return this;
    }

    /** Whether sshd accepts passwords. */
    public Builder passwordAuthentication(boolean allowed) {
      this.passwordAuthentication = allowed;
      return this;
    }

    public Builder sshKeys(List<SshKey> keys) {
      this.keys = List.copyOf(keys);
      return this;
    }

    /** sshd's AuthorizedKeysFile ({@code %h}, {@code %u} expanded; relative to the home). */
    public Builder authorizedKeysFile(String pattern) {
      this.authorizedKeysFile = requireNonNull(pattern, "pattern");
      return this;
    }

    /**
     * Whether, on a live system, sshd is asked where it reads keys ({@code sshd -T}), the
     * configured file being the fallback (azure-init's {@code ssh.query_sshd_config}).
     */
    public Builder querySshd(boolean query) {
      this.querySshd = query;
      return this;
    }

    public Provisioner build() {
      return new Provisioner(this);
    }
  }
}
