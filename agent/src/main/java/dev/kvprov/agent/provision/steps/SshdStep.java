package dev.kvprov.agent.provision.steps;

import dev.kvprov.agent.os.CommandResult;
import dev.kvprov.kvp.IoErrors;
import io.opentelemetry.api.trace.Span;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * sshd's password logins — {@code PasswordAuthentication} and keyboard-interactive with it — and,
 * when configured, {@code ClientAliveInterval}: in kvprov's drop-in where the main file includes
 * {@code sshd_config.d}, else in the main file itself; checked with {@code sshd -t} before it takes
 * effect and, on the running system, sshd reloaded.
 */
final class SshdStep implements Step.Action {
  /**
   * Keywords sshd takes as another's: since OpenSSH 8.7 ChallengeResponseAuthentication is
   * KbdInteractiveAuthentication under its old name, and sshd keeps whichever comes first.
   */
  private static final Map<String, String> ALIASES =
      Map.of("kbdinteractiveauthentication", "ChallengeResponseAuthentication");

  private static final Pattern INCLUDES_DROP_INS =
      Pattern.compile(
          "^\\s*Include\\s+\\S*sshd_config\\.d/\\S*\\.conf\\s*$",
          Pattern.CASE_INSENSITIVE | Pattern.MULTILINE);

  private final Machine machine;
  private final boolean passwordAuthentication;
  private final long clientAliveInterval;
  private final String dropIn;

  SshdStep(Machine machine, Target target) {
    this.machine = machine;
    this.passwordAuthentication = target.passwordAuthentication();
    this.clientAliveInterval = target.clientAliveInterval();
    this.dropIn = target.sshdDropIn();
  }

  @Override
  public void run(Span span) throws ProvisioningException, IOException, InterruptedException {
    String answer = passwordAuthentication ? "yes" : "no";
    span.setAttribute("directive", "PasswordAuthentication " + answer);
    List<String> directives = new ArrayList<>();
    directives.add("PasswordAuthentication " + answer);
    // Keyboard-interactive logins ask for the same password: set with it, as WALinuxAgent did.
    directives.add("KbdInteractiveAuthentication " + answer);
    if (clientAliveInterval > 0) {
      directives.add("ClientAliveInterval " + clientAliveInterval);
    }
    apply(directives, span);
  }

  private void apply(List<String> directives, Span span)
      throws ProvisioningException, IOException, InterruptedException {
    // Read as the target reads it (links followed inside the root); written in /etc/ssh itself,
    // a link there replaced by the file (on images whose sshd_config links to /usr's default).
    Path main = machine.root.resolve("/etc/ssh/sshd_config");
    String config = Files.exists(main) ? Files.readString(main) : "";
    Path target;
    String content;
    if (INCLUDES_DROP_INS.matcher(config).find()) {
      // sshd keeps the first value it reads: the drop-in's name decides its rank among the others.
      target = machine.root.resolve("/etc/ssh/sshd_config.d").resolve(dropIn);
      content = String.join("\n", directives) + "\n";
    } else {
      target = machine.root.resolve("/etc/ssh").resolve("sshd_config");
      content = config;
      for (String directive : directives) {
        content = withDirective(content, directive);
      }
    }
    span.setAttribute("file", target.toString());
    boolean unchanged =
        Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)
            && Files.readString(target).equals(content);
    span.setAttribute("changed", !unchanged);
    // Checked before it takes effect, and checked again when unchanged: a broken file left by an
    // earlier run must not pass for a good one.
    Path candidate = unchanged ? target : target.resolveSibling(".kvprov-candidate");
    try {
      if (!unchanged) {
        machine.write(candidate, content, "rw-r--r--", -1, -1);
      }
      if (machine.has("sshd")) {
        validate(candidate, span);
      }
      if (!unchanged) {
        machine.write(target, content, "rw-r--r--", -1, -1);
      }
    } finally {
      if (!unchanged) {
        Files.deleteIfExists(candidate);
      }
    }
    if (!unchanged && machine.root.isLive() && machine.has("systemctl")) {
      reloadRunning(machine);
    }
  }

  /** sshd's unit by both its names: Debian's {@code ssh}, and {@code sshd} elsewhere. */
  private static final List<String> UNITS = List.of("ssh", "sshd");

  /**
   * Reloads sshd's unit if it runs (the first of its names that does). One {@code systemctl
   * is-active} asks for both names: it prints each unit's state, a line each, in order.
   */
  static void reloadRunning(Machine machine)
      throws ProvisioningException, IOException, InterruptedException {
    List<String> argv = new ArrayList<>(List.of("systemctl", "is-active"));
    argv.addAll(UNITS);
    List<String> states =
        machine.runner.ask(argv, Machine.COMMAND_TIMEOUT).stdout().lines().toList();
    for (int i = 0; i < UNITS.size() && i < states.size(); i++) {
      // is-active's "yes": active, or on its way back to it
      if (List.of("active", "reloading", "refreshing").contains(states.get(i).strip())) {
        machine.run(List.of("systemctl", "reload", UNITS.get(i)));
        return;
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
    if (!machine.root.isLive() || Files.exists(directory, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try {
      Files.createDirectory(
          directory,
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
      Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxr-xr-x"));
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
  private void validate(Path written, Span span)
      throws ProvisioningException, IOException, InterruptedException {
    List<String> check = new ArrayList<>(List.of("sshd", "-t", "-f", written.toString()));
    privilegeSeparationDirectory(span);
    Path keyDir = null;
    if (!machine.root.isLive() && machine.has("ssh-keygen")) {
      keyDir = Files.createTempDirectory("kvprov-sshd-check");
      Path key = keyDir.resolve("host_key");
      CommandResult made =
          machine.tryRun(
              List.of("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key.toString()));
      if (made.succeeded()) {
        check.addAll(List.of("-h", key.toString()));
      }
    }
    try {
      CommandResult result = machine.tryRun(check);
      if (!result.succeeded()) {
        // sshd refuses to check anything when its privilege separation directory is missing or
        // not root's (a build machine; a user namespace, where root's files show as nobody's):
        // that says nothing about our configuration.
        if (result.stderr().contains("Missing privilege separation directory")
            || result.stderr().contains("/run/sshd must be owned by root")) {
          span.addEvent("sshd cannot check configurations here: " + result.summary());
          return;
        }
        throw machine.failure("sshd failed: " + result.summary());
      }
    } finally {
      if (keyDir != null) {
        try (Stream<Path> files = Files.list(keyDir)) {
          for (Path f : files.toList()) {
            Files.deleteIfExists(f);
          }
        }
        Files.deleteIfExists(keyDir);
      }
    }
  }

  /**
   * {@code config} with exactly one active line of {@code directive}'s keyword, set to {@code
   * directive}: the first active one is replaced in place, later ones removed, commented examples
   * left alone; with none, it goes before the first {@code Match} block (or at the end).
   */
  static String withDirective(String config, String directive) {
    String keyword = directive.substring(0, directive.indexOf(' '));
    String alias = ALIASES.get(keyword.toLowerCase(Locale.ROOT));
    String either = Pattern.quote(keyword) + (alias == null ? "" : "|" + Pattern.quote(alias));
    Pattern active = Pattern.compile("^\\s*(" + either + ")[\\s=]+.*$", Pattern.CASE_INSENSITIVE);
    List<String> lines = new ArrayList<>(config.lines().toList());
    int firstMatch = lines.size();
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).strip().toLowerCase(Locale.ROOT).startsWith("match ")) {
        firstMatch = i;
        break;
      }
    }
    boolean placed = false;
    // Only the global part: a Match block's own setting is the administrator's exception.
    for (int i = 0; i < firstMatch; i++) {
      if (active.matcher(lines.get(i)).matches() && !lines.get(i).strip().startsWith("#")) {
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
}
