package dev.kvprov.agent.provision;

import dev.kvprov.agent.os.AccountRepair;
import dev.kvprov.agent.os.GroupFile;
import dev.kvprov.agent.os.LoginDefs;
import dev.kvprov.agent.os.Names;
import dev.kvprov.agent.os.Passwd;
import dev.kvprov.agent.os.SystemRoot;
import dev.kvprov.agent.ovf.Secret;
import dev.kvprov.agent.provision.steps.Step;
import java.io.IOException;
import java.util.Arrays;
import java.util.Base64;
import java.util.EnumSet;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * The platform's answer checked before any step runs, so that what cannot be done is refused with
 * the field named and the machine untouched (cloud-init #6948, #6958: such errors used to surface
 * half-way, after the host name or the user had changed). Each check says why in one line and never
 * quotes the password or the custom data.
 */
final class DataCheck {
  /**
   * Azure's documented maximum for a Linux VM's {@code adminPassword} (osProfile: "Max-length
   * (Linux): 72 characters"; 123 is Windows').
   */
  static final int MAX_PASSWORD = 72;

  private DataCheck() {}

  /** The steps that act as the admin user: its name must be one an account can have. */
  private static final Set<Step> AS_THE_USER =
      EnumSet.of(Step.USER, Step.PASSWORD, Step.SUDOERS, Step.SSH_KEYS);

  /**
   * Refuses the first field that cannot be carried out on {@code root} by the {@code steps} that
   * will run (a hand-run {@code --only ssh-keys} is not refused for a password it never sets): the
   * host name, the admin user (its form, and a clash with a system account or a group), the
   * password, the custom data. No step writes the custom data: a whole run keeps it for the image's
   * own readers, so only a whole run checks it.
   */
  static void check(
      PlatformData data, Optional<Secret> customData, SystemRoot root, Set<Step> steps)
      throws DataRefused {
    if (steps.contains(Step.HOSTNAME)) {
      Optional<String> host = Names.hostProblem(data.hostname());
      if (host.isPresent()) {
        throw new DataRefused(host.get());
      }
    }
    if (steps.stream().anyMatch(AS_THE_USER::contains)) {
      Optional<String> user = Names.userProblem(data.adminUser());
      if (user.isPresent()) {
        throw new DataRefused(user.get());
      }
      clash(data.adminUser(), root, steps.contains(Step.USER));
    }
    if (steps.contains(Step.PASSWORD) && data.password().isPresent()) {
      password(data.password().get());
    }
    if (steps.containsAll(EnumSet.allOf(Step.class)) && customData.isPresent()) {
      base64(customData.get());
    }
  }

  /**
   * The admin user must not be a system account, nor take the name of a system group, nor (where
   * useradd makes each user a group of its name) that of a group someone has (useradd would refuse
   * the group, half-way). Its own entry from an earlier run is no clash: an ordinary user keeps its
   * own group. The groups matter only when the user step is to run, which may create the user.
   */
  private static void clash(String user, SystemRoot root, boolean creates) throws DataRefused {
    try {
      Optional<Passwd> existing = Passwd.lookup(root, user);
      if (existing.isPresent()) {
        if (existing.get().uid() < LoginDefs.uidMin(root)) {
          throw new DataRefused(
              "user name '"
                  + user
                  + "' is a system account in /etc/passwd (uid "
                  + existing.get().uid()
                  + ")");
        }
        return;
      }
      if (!creates) {
        return;
      }
      OptionalInt gid = GroupFile.read(root).gid(user);
      if (gid.isPresent() && gid.getAsInt() < LoginDefs.gidMin(root)) {
        throw new DataRefused(
            "user name '"
                + user
                + "' is a system group in /etc/group (gid "
                + gid.getAsInt()
                + ")");
      }
      // useradd makes the user's own group of its name (USERGROUPS_ENAB) and refuses one that
      // exists; only a group the account repair removes first is no clash.
      Optional<String> kept = AccountRepair.keptGroup(root, user);
      if (kept.isPresent() && LoginDefs.userGroups(root)) {
        throw new DataRefused(
            "user name '"
                + user
                + "' is taken by a group in /etc/group ("
                + kept.get()
                + "), and useradd gives each new user a group of its own name (USERGROUPS_ENAB)");
      }
    } catch (IOException e) {
      // Unreadable account files: the user step says so, naming the file, before it changes them.
    }
  }

  /**
   * kvprov hashes the password itself, so {@code :} and any other character reach the shadow file;
   * but a line break or a NUL can never be typed at a login (the prompt ends at the line break,
   * crypt(3) at the NUL): such a password would lock the user out.
   */
  private static void password(Secret password) throws DataRefused {
    char[] chars = password.copy();
    try {
      int length = Character.codePointCount(chars, 0, chars.length);
      if (length > MAX_PASSWORD) {
        throw new DataRefused(
            "admin password longer than " + MAX_PASSWORD + " characters (Azure's limit)");
      }
      for (char c : chars) {
        if (c == '\n' || c == '\r' || c == '\0') {
          throw new DataRefused("admin password has a line break or NUL: no login can type it");
        }
      }
    } finally {
      Arrays.fill(chars, '\0');
    }
  }

  /** The media's custom data is base64 (line breaks and spaces between allowed, as cloud-init). */
  private static void base64(Secret customData) throws DataRefused {
    char[] chars = customData.copy();
    byte[] ascii = new byte[chars.length];
    int n = 0;
    byte[] trimmed = null;
    byte[] decoded = null;
    try {
      for (char c : chars) {
        if (Character.isWhitespace(c)) {
          continue;
        }
        if (c > 0x7f) {
          throw new DataRefused("custom data (CustomData) is not valid base64");
        }
        ascii[n++] = (byte) c;
      }
      trimmed = Arrays.copyOf(ascii, n);
      decoded = Base64.getDecoder().decode(trimmed);
    } catch (IllegalArgumentException e) {
      throw new DataRefused("custom data (CustomData) is not valid base64");
    } finally {
      Arrays.fill(chars, '\0');
      Arrays.fill(ascii, (byte) 0);
      if (trimmed != null) {
        Arrays.fill(trimmed, (byte) 0);
      }
      if (decoded != null) {
        Arrays.fill(decoded, (byte) 0);
      }
    }
  }
}
