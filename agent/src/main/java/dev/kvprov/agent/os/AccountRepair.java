package dev.kvprov.agent.os;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Puts one user's entries in the account files (passwd, shadow, group, gshadow) back in agreement
 * after a crash, so that the set-up can run again.
 *
 * <p>{@code useradd} writes passwd, then shadow, then group and gshadow, each under a lock file
 * that names its process. Killed in between (a power cut, systemd's timeout, kill -9), it leaves
 * the user in passwd but not in shadow, and the lock files behind: every later run then fails at
 * the password. The repair, {@code pwconv}/{@code grpconv}-style but for this one user only:
 *
 * <ul>
 *   <li>a lock file is stale, and removed, when it was left before this boot or its process is not
 *       running (after a reboot, its number may well be another process's);
 *   <li>a user in passwd gets the shadow entry it lacks (password locked, until the password step
 *       sets it), its primary group if that group is missing, and that group's gshadow entry;
 *   <li>a user not in passwd loses what a crashed {@code useradd} left of it in shadow, and its
 *       private group (named after it, no members, nobody's primary group) in group and gshadow,
 *       which would make {@code useradd} refuse to start.
 * </ul>
 *
 * Other users' entries are never touched. The files are rewritten whole (temporary file, rename)
 * under the same {@code /etc/.pwd.lock} fcntl lock that shadow-utils and glibc's {@code lckpwdf}
 * take.
 */
public final class AccountRepair {
  private static final List<String> DATABASES =
      List.of("passwd", "shadow", "group", "gshadow", "subuid", "subgid");
  private static final Duration LOCK_WAIT = Duration.ofSeconds(15);

  private final SystemRoot root;
  private final String user;
  private final Instant bootTime;
  private final List<String> repairs = new ArrayList<>();

  private AccountRepair(SystemRoot root, String user, Instant bootTime) {
    this.root = root;
    this.user = user;
    this.bootTime = bootTime;
  }

  /**
   * Repairs what a crash left of {@code user}; what was repaired, in words (empty when nothing
   * was).
   *
   * @param bootTime when this boot began: lock files older than it are stale
   */
  public static List<String> repair(SystemRoot root, String user, Instant bootTime)
      throws IOException, InterruptedException {
    AccountRepair repair = new AccountRepair(root, user, bootTime);
    repair.removeStaleLocks();
    repair.reconcile();
    return List.copyOf(repair.repairs);
  }

  private Path etc(String name) {
    return root.resolve("/etc/" + name);
  }

  // ---- lock files -----------------------------------------------------------------------------

  private void removeStaleLocks() throws IOException {
    for (String database : DATABASES) {
      Path lock = etc(database + ".lock");
      if (!Files.isRegularFile(lock, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
        continue;
      }
      Optional<Long> pid = pidIn(lock);
      String why;
      if (Files.getLastModifiedTime(lock).toInstant().isBefore(bootTime)) {
        why = "left before this boot";
      } else if (pid.isEmpty()) {
        why = "names no process";
      } else if (!running(pid.get())) {
        why = "its process " + pid.get() + " is not running";
      } else {
        continue; // a live useradd (or cloud-init's) holds it: shadow-utils will wait for it
      }
      Files.deleteIfExists(lock);
      pid.ifPresent(p -> deleteQuietly(etc(database + "." + p)));
      deleteQuietly(etc(database + "+")); // the crashed writer's half-written new file
      repairs.add("removed the stale lock /etc/" + database + ".lock (" + why + ")");
    }
  }

  private static Optional<Long> pidIn(Path lock) {
    try {
      // shadow-utils writes the number and a NUL
      return Optional.of(Long.parseLong(Files.readString(lock).replace("\0", "").strip()));
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
  }

  private static boolean running(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      // a leftover that cannot be removed is overwritten by the next writer anyway
    }
  }

  // ---- entries --------------------------------------------------------------------------------

  private void reconcile() throws IOException, InterruptedException {
    if (!Files.exists(etc("passwd"))) {
      return;
    }
    try (Held ignored = lockAccounts()) {
      Optional<String[]> passwd = entry("passwd");
      if (passwd.isPresent() && passwd.get().length >= 7) {
        completeUser(passwd.get());
      } else if (passwd.isEmpty()) {
        removeRemnants();
      }
    }
  }

  private void completeUser(String[] passwd) throws IOException {
    long today = LocalDate.now(ZoneOffset.UTC).toEpochDay();
    if (Files.exists(etc("shadow")) && entry("shadow").isEmpty()) {
      append("shadow", user + ":!:" + today + ":0:99999:7:::");
      repairs.add("added the missing shadow entry of " + user + " (password locked)");
    }
    String gid = passwd[3];
    if (Files.exists(etc("group"))
        && lines("group").stream().noneMatch(l -> field(l, 2).equals(gid))
        && entry("group").isEmpty()) {
      append("group", user + ":x:" + gid + ":");
      repairs.add("added the missing primary group " + user + " (gid " + gid + ")");
    }
    if (entry("group").isPresent() && Files.exists(etc("gshadow")) && entry("gshadow").isEmpty()) {
      append("gshadow", user + ":!::");
      repairs.add("added the missing gshadow entry of group " + user);
    }
  }

  private void removeRemnants() throws IOException {
    if (remove("shadow", l -> field(l, 0).equals(user))) {
      repairs.add("removed the shadow entry of " + user + ", who is not in passwd");
    }
    Optional<String[]> group = entry("group");
    if (group.isPresent()
        && whyKept(group.get(), lines("passwd")).isEmpty()
        && remove("group", l -> field(l, 0).equals(user))) {
      remove("gshadow", l -> field(l, 0).equals(user));
      repairs.add("removed the group " + user + " left by a user creation that did not finish");
    }
  }

  /**
   * Why the group named {@code user} in {@code root} is someone's, which the repair leaves alone:
   * it has members, or is a user's primary group. Empty when there is no such group, or it is what
   * a crashed {@code useradd} leaves (and the repair removes). For a user not yet in passwd, such a
   * group makes {@code useradd} with {@code USERGROUPS_ENAB} refuse, half-way through a run.
   */
  public static Optional<String> keptGroup(SystemRoot root, String user) throws IOException {
    AccountRepair files = new AccountRepair(root, user, Instant.EPOCH);
    Optional<String[]> group = files.entry("group");
    return group.isEmpty() ? Optional.empty() : whyKept(group.get(), files.lines("passwd"));
  }

  /** The one rule of which group named like the user is a crash's remnant; see keptGroup. */
  private static Optional<String> whyKept(String[] group, List<String> passwd) {
    if (group.length < 4) {
      return Optional.of("its entry is not complete");
    }
    if (!group[3].isEmpty()) {
      String members = group[3].length() > 60 ? group[3].substring(0, 60) + "…" : group[3];
      return Optional.of("it has members: " + members);
    }
    String gid = group[2];
    return passwd.stream()
        .filter(l -> field(l, 3).equals(gid))
        .findFirst()
        .map(l -> "it is " + field(l, 0) + "'s primary group");
  }

  /** A lock held until closed. */
  private interface Held extends AutoCloseable {
    @Override
    void close() throws IOException;
  }

  /** The {@code /etc/.pwd.lock} fcntl lock, waited for as {@code lckpwdf} does (15 s). */
  private Held lockAccounts() throws IOException, InterruptedException {
    FileChannel channel =
        FileChannel.open(
            etc(".pwd.lock"),
            java.util.Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    long until = System.nanoTime() + LOCK_WAIT.toNanos();
    try {
      while (true) {
        FileLock lock = channel.tryLock();
        if (lock != null) {
          return () -> {
            try {
              lock.release();
            } finally {
              channel.close();
            }
          };
        }
        if (System.nanoTime() > until) {
          throw new IOException(
              "the account files stay locked by another process (/etc/.pwd.lock, "
                  + LOCK_WAIT.toSeconds()
                  + " s)");
        }
        Thread.sleep(100);
      }
    } catch (IOException | InterruptedException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  private List<String> lines(String database) throws IOException {
    try {
      return Files.readAllLines(etc(database));
    } catch (NoSuchFileException e) {
      return List.of();
    }
  }

  private Optional<String[]> entry(String database) throws IOException {
    return lines(database).stream()
        .filter(l -> field(l, 0).equals(user))
        .map(l -> l.split(":", -1))
        .findFirst();
  }

  private static String field(String line, int index) {
    String[] f = line.split(":", -1);
    return index < f.length ? f[index] : "";
  }

  private void append(String database, String line) throws IOException {
    List<String> lines = new ArrayList<>(lines(database));
    lines.add(line);
    rewrite(database, lines);
  }

  private boolean remove(String database, Predicate<String> which) throws IOException {
    List<String> lines = new ArrayList<>(lines(database));
    if (!lines.removeIf(which)) {
      return false;
    }
    rewrite(database, lines);
    return true;
  }

  /** The whole file anew, with its mode and owner. */
  private void rewrite(String database, List<String> lines) throws IOException {
    Path file = etc(database);
    String mode = PosixFilePermissions.toString(Files.getPosixFilePermissions(file));
    int uid = (Integer) Files.getAttribute(file, "unix:uid");
    int gid = (Integer) Files.getAttribute(file, "unix:gid");
    StringBuilder text = new StringBuilder();
    lines.forEach(l -> text.append(l).append('\n'));
    AtomicFiles.write(file, text.toString(), mode, uid, gid);
  }
}
