package dev.kvprov.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** The checks of {@code pwck} and {@code grpck} on a root's account files, for tests. */
public final class AccountFilesAssert {
  private AccountFilesAssert() {}

  /**
   * Every passwd user has one shadow entry and an existing primary group; every shadow entry a
   * user; every group one gshadow entry, and back; no name twice.
   */
  public static void consistent(Path root) throws Exception {
    List<String[]> passwd = entries(root, "passwd");
    Set<String> users = names(passwd);
    Set<String> groupIds =
        entries(root, "group").stream().map(f -> f[2]).collect(Collectors.toSet());
    assertThat(passwd).extracting(f -> f[0]).doesNotHaveDuplicates();
    assertThat(entries(root, "shadow")).extracting(f -> f[0]).doesNotHaveDuplicates();
    assertThat(names(entries(root, "shadow"))).as("shadow = passwd").isEqualTo(users);
    for (String[] user : passwd) {
      assertThat(groupIds).as("primary group of " + user[0]).contains(user[3]);
    }
    assertThat(entries(root, "group")).extracting(f -> f[0]).doesNotHaveDuplicates();
    assertThat(names(entries(root, "gshadow")))
        .as("gshadow = group")
        .isEqualTo(names(entries(root, "group")));
  }

  private static List<String[]> entries(Path root, String file) throws Exception {
    return Files.readAllLines(root.resolve("etc/" + file)).stream()
        .filter(l -> !l.isBlank())
        .map(l -> l.split(":", -1))
        .toList();
  }

  private static Set<String> names(List<String[]> entries) {
    return entries.stream().map(f -> f[0]).collect(Collectors.toSet());
  }
}
