package dev.kvprov.inspect.bundle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.inspect.TestBundle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal part, with a stand-in {@code journalctl}: a real script, run as a real process, that
 * says what it was asked (the real one would read this machine's journal, not the test's).
 */
class BundleJournalTest {
  @TempDir Path dir;

  private Path journalctl(String body) throws Exception {
    Path script = dir.resolve("journalctl");
    Files.writeString(script, "#!/bin/sh\n" + body + "\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
    return script;
  }

  private static BundleInput live() {
    return new BundleInput(BundleInput.Kind.LIVE, Path.of("/"), Path.of("/var/lib/hyperv"), "", 1);
  }

  private BundleInput rescued() throws Exception {
    Path root = Files.createDirectories(dir.resolve("rescued"));
    return new BundleInput(BundleInput.Kind.ROOT, root, Path.of("/var/lib/hyperv"), "", 1);
  }

  @Test
  void onALiveMachine_thisBootsKvprovService_isTaken_namesReplacedWhenAsked() throws Exception {
    Path journalctl =
        journalctl("echo \"asked: $*\"\necho 'kvprov[1]: user alice made in /home/alice'");
    BundleInput accounts = rescued();
    Files.writeString(
        Files.createDirectories(accounts.root().resolve("etc")).resolve("passwd"),
        "alice:x:1000:1000::/home/alice:/bin/sh\n");
    BundleUsers users = BundleUsers.learned(accounts, java.util.List.of(), new BundleManifest());

    Map<String, String> files;
    try (TestBundle bundle = new TestBundle(dir)) {
      new BundleJournal(Optional.of(journalctl), Duration.ofSeconds(20))
          .add(live(), users, bundle.files);
      files = bundle.finish();
    }

    String alice = "user-" + UserNames.hash("alice");
    assertThat(files.get("journal/kvprov.service.txt"))
        .isEqualTo(
            "asked: -b -u kvprov.service --no-pager -o short-iso-precise\n"
                + "kvprov[1]: user "
                + alice
                + " made in /home/"
                + alice
                + "\n");
    assertThat(files.get("MANIFEST.txt"))
        .contains("added journal/kvprov.service.txt", "from " + journalctl + " -b -u");
  }

  @Test
  void underARoot_itsJournalDirectoryIsRead_orItsAbsenceSaid() throws Exception {
    Path journalctl = journalctl("echo \"asked: $*\"");
    BundleInput rescued = rescued();
    BundleJournal journal = new BundleJournal(Optional.of(journalctl), Duration.ofSeconds(20));

    Map<String, String> without;
    try (TestBundle bundle = new TestBundle(dir)) {
      journal.add(rescued, BundleUsers.kept(), bundle.files);
      without = bundle.finish();
    }
    Path logs = Files.createDirectories(rescued.root().resolve("var/log/journal"));
    Map<String, String> with;
    try (TestBundle bundle = new TestBundle(dir)) {
      journal.add(rescued, BundleUsers.kept(), bundle.files);
      with = bundle.finish();
    }

    assertThat(without.get("MANIFEST.txt"))
        .isEqualTo("no journal: " + logs + " does not exist (a volatile journal, or none)\n");
    assertThat(with.get("journal/kvprov.service.txt"))
        .isEqualTo("asked: -D " + logs + " -u kvprov.service --no-pager -o short-iso-precise\n");
  }

  @Test
  void aJournalctlThatDoesNotEnd_isStopped_andWhatItWroteIsKept() throws Exception {
    Path journalctl = journalctl("echo 'first line'\nexec sleep 600");

    Map<String, String> files;
    try (TestBundle bundle = new TestBundle(dir)) {
      new BundleJournal(Optional.of(journalctl), Duration.ofSeconds(1))
          .add(live(), BundleUsers.kept(), bundle.files);
      files = bundle.finish();
    }

    assertThat(files.get("journal/kvprov.service.txt"))
        .isEqualTo("first line\n\n[journalctl did not end within 1 s: cut there]\n");
  }

  @Test
  void withoutJournalctl_theManifestSaysSo() throws Exception {
    Map<String, String> files;
    try (TestBundle bundle = new TestBundle(dir)) {
      new BundleJournal(Optional.empty(), Duration.ofSeconds(20))
          .add(live(), BundleUsers.kept(), bundle.files);
      files = bundle.finish();
    }

    assertThat(files).containsOnlyKeys("MANIFEST.txt");
    assertThat(files.get("MANIFEST.txt")).isEqualTo("no journal: journalctl is not installed\n");
  }
}
