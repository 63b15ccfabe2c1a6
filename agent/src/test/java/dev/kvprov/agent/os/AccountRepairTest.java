package dev.kvprov.agent.os;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.agent.AccountFilesAssert;
import dev.kvprov.agent.demo.DemoRoot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a crashed useradd leaves, put right for the next run; everything else left alone. */
class AccountRepairTest {
  @TempDir Path dir;
  private SystemRoot root;
  private final Instant boot = Instant.now().minusSeconds(60);

  @BeforeEach
  void setUp() throws Exception {
    root = new SystemRoot(DemoRoot.create(dir.resolve("root"), true));
  }

  private Path etc(String name) {
    return root.resolve("/etc/" + name);
  }

  private void add(String file, String line) throws Exception {
    Files.writeString(etc(file), line + "\n", java.nio.file.StandardOpenOption.APPEND);
  }

  @Test
  void aUserInPasswdOnly_getsShadowPrimaryGroupAndGshadow_otherUsersUntouched() throws Exception {
    add("passwd", "azureuser:x:1000:1000::/home/azureuser:/bin/bash");
    String shadowBefore = Files.readString(etc("shadow"));

    List<String> repairs = AccountRepair.repair(root, "azureuser", boot);

    assertThat(repairs)
        .containsExactly(
            "added the missing shadow entry of azureuser (password locked)",
            "added the missing primary group azureuser (gid 1000)",
            "added the missing gshadow entry of group azureuser");
    assertThat(Files.readString(etc("shadow"))).startsWith(shadowBefore).contains("azureuser:!:");
    assertThat(Files.getPosixFilePermissions(etc("shadow")))
        .isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rw-r-----"));
    AccountFilesAssert.consistent(root.path());
    assertThat(AccountRepair.repair(root, "azureuser", boot)).as("done once").isEmpty();
  }

  @Test
  void remnantsOfAUserNotInPasswd_areRemoved_soUseraddCanStart() throws Exception {
    add("shadow", "azureuser:!:20000:0:99999:7:::");
    add("group", "azureuser:x:1000:");
    add("gshadow", "azureuser:!::");

    assertThat(AccountRepair.repair(root, "azureuser", boot)).hasSize(2);

    assertThat(Files.readString(etc("shadow"))).doesNotContain("azureuser");
    assertThat(Files.readString(etc("group"))).doesNotContain("azureuser");
    assertThat(Files.readString(etc("gshadow"))).doesNotContain("azureuser");
    AccountFilesAssert.consistent(root.path());
  }

  @Test
  void aGroupNamedLikeTheUser_thatHasMembersOrIsSomeonesPrimary_isKept() throws Exception {
    add("group", "azureuser:x:1000:alice");
    add("gshadow", "azureuser:!::alice");

    assertThat(AccountRepair.repair(root, "azureuser", boot)).isEmpty();

    assertThat(Files.readString(etc("group"))).contains("azureuser:x:1000:alice");
  }

  @Test
  void lockFiles_areRemovedWhenLeftBeforeThisBootOrTheirProcessIsGone_keptWhileItRuns()
      throws Exception {
    long alive = ProcessHandle.current().pid();
    Process gone = new ProcessBuilder("true").start();
    gone.waitFor();
    Files.writeString(etc("passwd.lock"), alive + "\0"); // alive, but from an earlier boot
    Files.setLastModifiedTime(etc("passwd.lock"), FileTime.from(boot.minusSeconds(3600)));
    Files.writeString(etc("shadow.lock"), gone.pid() + "\0");
    Files.writeString(etc("group.lock"), "garbage");
    Files.writeString(etc("gshadow.lock"), String.valueOf(alive)); // a live writer of this boot
    Files.writeString(etc("shadow+"), "root:*:190");

    List<String> repairs = AccountRepair.repair(root, "azureuser", boot);

    assertThat(repairs)
        .containsExactly(
            "removed the stale lock /etc/passwd.lock (left before this boot)",
            "removed the stale lock /etc/shadow.lock (its process "
                + gone.pid()
                + " is not running)",
            "removed the stale lock /etc/group.lock (names no process)");
    assertThat(etc("passwd.lock")).doesNotExist();
    assertThat(etc("shadow.lock")).doesNotExist();
    assertThat(etc("shadow+")).doesNotExist();
    assertThat(etc("group.lock")).doesNotExist();
    assertThat(etc("gshadow.lock")).exists();
  }
}
