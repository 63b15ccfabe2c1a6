package dev.kvprov.agent.os;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/** The target system's {@code /etc/group}: which groups exist, and who is in them. */
public final class GroupFile {
  private final Map<String, List<String>> members;
  private final Map<String, Integer> gids;

  private GroupFile(Map<String, List<String>> members, Map<String, Integer> gids) {
    this.members = members;
    this.gids = gids;
  }

  /** {@code <root>/etc/group}; a system without one has no groups. */
  public static GroupFile read(SystemRoot root) throws IOException {
    Map<String, List<String>> members = new LinkedHashMap<>();
    Map<String, Integer> gids = new LinkedHashMap<>();
    try {
      for (String line : Files.readAllLines(root.resolve("/etc/group"))) {
        String[] f = line.split(":", -1);
        if (f[0].isEmpty()) {
          continue;
        }
        members.putIfAbsent(
            f[0], f.length >= 4 && !f[3].isEmpty() ? Arrays.asList(f[3].split(",")) : List.of());
        if (f.length >= 3 && f[2].matches("[0-9]{1,9}")) {
          gids.putIfAbsent(f[0], Integer.parseInt(f[2]));
        }
      }
    } catch (NoSuchFileException e) {
      // no group file: no groups
    }
    return new GroupFile(members, gids);
  }

  /** Those of {@code groups} that exist here, in the order given. */
  public List<String> existing(List<String> groups) {
    return groups.stream().filter(members::containsKey).toList();
  }

  /** Whether {@code user} is listed as a member of {@code group}. */
  public boolean isMember(String user, String group) {
    return members.getOrDefault(group, List.of()).contains(user);
  }

  /** The gid of {@code group}, if it exists here with a numeric one. */
  public OptionalInt gid(String group) {
    Integer gid = gids.get(group);
    return gid == null ? OptionalInt.empty() : OptionalInt.of(gid);
  }
}
