package dev.kvprov.agent.provision.steps;

import dev.kvprov.agent.os.Names;
import dev.kvprov.agent.os.Passwd;
import dev.kvprov.agent.os.SystemRoot;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The admin user's SSH keys, added to the file sshd reads (asked of sshd on the running system), or
 * where the platform asked inside the home, or, on an image that keeps fragments, to {@code kvprov}
 * in the configured directory. Keys already there stay; nothing outside the home is touched, and no
 * link the user could plant is followed.
 */
final class SshKeysStep implements Step.Action {
  /** The fragment's name in an {@code authorized_keys.d} directory, as Afterburn names its own. */
  static final String FRAGMENT = "kvprov";

  private final Machine machine;
  private final Target target;

  SshKeysStep(Machine machine, Target target) {
    this.machine = machine;
    this.target = target;
  }

  @Override
  public void run(Span span) throws ProvisioningException, IOException, InterruptedException {
    span.setAttribute("keys", (long) target.keys().size());
    if (target.keys().isEmpty()) {
      return;
    }
    String user = target.user();
    Passwd entry =
        Passwd.lookup(machine.root, user)
            .orElseThrow(() -> machine.failure("no passwd entry for " + user));
    String home = entry.home();
    List<String> sshdReads = List.of();
    if (target.querySshd() && machine.root.isLive() && machine.has("sshd")) {
      sshdReads = AuthorizedKeysFile.query(machine.runner, user, target.hostname());
      span.setAttribute(
          "authorized_keys_file.source", sshdReads.isEmpty() ? "configuration" : "sshd -T");
    }
    String pattern = sshdReads.isEmpty() ? target.authorizedKeysFile() : sshdReads.get(0);
    Path keysFile = Path.of(home).resolve(expand(pattern, home, user)).normalize();
    Path defaultFile = keysFile;
    if (!target.authorizedKeysDirectory().isEmpty()) {
      Path directory = Path.of(home).resolve(target.authorizedKeysDirectory()).normalize();
      defaultFile = directory.resolve(FRAGMENT);
      checkSshdReads(directory, sshdReads, home, user, span);
    }
    Map<Path, List<String>> byFile = new LinkedHashMap<>();
    List<String> unusable = new ArrayList<>();
    for (int index = 0; index < target.keys().size(); index++) {
      SshKey key = target.keys().get(index);
      Optional<String> bad = key.problem();
      if (bad.isPresent()) {
        unusable.add(describe(index, key) + " was not installed: " + bad.get());
        continue;
      }
      if (key.path().isPresent() && Names.hasControlCharacter(key.path().get())) {
        throw machine.failure("a key path holds a control character");
      }
      Path file = defaultFile;
      // The platform names the usual file for every key; with fragments, that means the fragment.
      if (key.path().isPresent() && !isUsualFile(key.path().get(), keysFile, home)) {
        Path asked = Path.of(key.path().get()).normalize();
        if (!asked.isAbsolute()
            || !asked.startsWith(Path.of(home))
            || asked.equals(Path.of(home))) {
          throw machine.failure(
              "the key path " + key.path().get() + " is not inside " + user + "'s home " + home);
        }
        file = asked;
      }
      byFile.computeIfAbsent(file, t -> new ArrayList<>()).add(key.keyData().strip());
    }
    for (var file : byFile.entrySet()) {
      install(entry, file.getKey(), file.getValue(), span);
    }
    if (!unusable.isEmpty()) {
      // The usable keys are in place (the VM stays reachable for a look); the step still fails,
      // so that the platform hears which key was dropped.
      span.setAttribute("keys.unusable", (long) unusable.size());
      throw machine.failure(String.join("; ", unusable));
    }
  }

  /** Which key: its place in the platform's list and its path, never its material. */
  private static String describe(int index, SshKey key) {
    String path =
        key.path()
            .map(p -> p.length() > 80 ? p.substring(0, 80) + "…" : p)
            .map(p -> p.replaceAll("\\p{Cntrl}", "?"))
            .orElse("none given");
    return "the SSH key at index " + index + " (path " + path + ")";
  }

  /** Whether {@code asked} is the one authorized_keys file, sshd's or the usual one. */
  private static boolean isUsualFile(String asked, Path keysFile, String home) {
    Path path = Path.of(asked).normalize();
    return path.equals(keysFile) || path.equals(Path.of(home, ".ssh", "authorized_keys"));
  }

  /**
   * Keys in a directory of fragments work only where sshd (or a tool of the image that merges them)
   * reads that directory: when sshd says it does not, the span says so, and the keys are written
   * all the same — the image may merge them.
   */
  private static void checkSshdReads(
      Path directory, List<String> sshdReads, String home, String user, Span span) {
    if (sshdReads.isEmpty()) {
      return;
    }
    span.setAttribute(AttributeKey.stringArrayKey("sshd.authorized_keys_file"), sshdReads);
    boolean read =
        sshdReads.stream()
            .map(p -> Path.of(home).resolve(expand(p, home, user)).normalize())
            .anyMatch(p -> p.startsWith(directory));
    if (!read) {
      span.addEvent(
          "sshd's AuthorizedKeysFile does not read "
              + directory
              + ": the keys there count only where the image merges them");
    }
  }

  private void install(Passwd entry, Path file, List<String> add, Span span)
      throws ProvisioningException, IOException {
    Path home = machine.root.resolve(entry.home());
    Path inHome = Path.of(entry.home()).relativize(file);
    Path target;
    if (file.startsWith(entry.home()) && !inHome.toString().isEmpty()) {
      // The user can plant links in the home, so none below it is followed (the image's own
      // links, up to the home, are the administrator's and are followed inside the root).
      target = SystemRoot.noLinksBelow(home, home.resolve(inHome.toString()));
    } else {
      target = machine.root.resolve(file.toString());
    }
    machine.refuseUsr(target);
    // Every directory from the home down to the file: 0700, the user's.
    List<Path> dirs = new ArrayList<>();
    for (Path d = target.getParent(); d != null && d.startsWith(home) && !d.equals(home); ) {
      dirs.add(0, d);
      d = d.getParent();
    }
    for (Path d : dirs) {
      if (!Files.isDirectory(d)) {
        Files.createDirectory(d);
      }
      Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwx------"));
      chown(d, entry, span);
    }
    if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)
        && !Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) {
      throw new IOException(target + " is not a regular file; refusing to touch it");
    }
    List<String> lines =
        Files.exists(target) ? new ArrayList<>(Files.readAllLines(target)) : new ArrayList<>();
    Set<String> present = new HashSet<>();
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
      machine.write(target, String.join("\n", lines) + "\n", "rw-------", -1, -1);
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
    } catch (FileSystemException e) {
      if (machine.root.isLive()
          || e.getReason() == null
          || !e.getReason().contains("Invalid argument")) {
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
  static String expand(String pattern, String home, String user) {
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
}
