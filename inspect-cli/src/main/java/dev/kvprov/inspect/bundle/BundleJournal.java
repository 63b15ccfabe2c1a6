package dev.kvprov.inspect.bundle;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvprov.kvp.IoErrors;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * {@code journal/kvprov.service.txt}: what {@code journalctl} has of kvprov.service, this boot's on
 * a live machine, the root's journal directory on a rescued disk. The output goes to a file, not a
 * pipe, so a journal of any size is never held; a {@code journalctl} that does not end (a damaged
 * journal) is stopped after {@code wait}, and what it wrote until then is kept.
 */
final class BundleJournal {
  /** Where a distribution puts it; only these, never the PATH, which the caller controls. */
  private static final List<String> PLACES = List.of("/usr/bin/journalctl", "/bin/journalctl");

  private static final Duration WAIT = Duration.ofSeconds(20);

  private final Optional<Path> journalctl;
  private final Duration wait;

  BundleJournal(Optional<Path> journalctl, Duration wait) {
    this.journalctl = journalctl;
    this.wait = wait;
  }

  /** The machine's own {@code journalctl}, if it has one. */
  public static BundleJournal installed() {
    return new BundleJournal(
        PLACES.stream().map(Path::of).filter(Files::isExecutable).findFirst(), WAIT);
  }

  public void add(BundleInput input, BundleUsers users, BundleFiles files) {
    BundleManifest manifest = files.manifest();
    if (journalctl.isEmpty()) {
      manifest.add("no journal: journalctl is not installed");
      return;
    }
    List<String> command = new ArrayList<>(List.of(journalctl.get().toString()));
    if (input.underRoot()) {
      Path root = input.root();
      Path logs = root.resolve("var/log/journal");
      if (!BundleImageFiles.inside(root, "var/log/journal", manifest)) {
        return;
      }
      if (!Files.isDirectory(logs)) {
        manifest.add("no journal: " + logs + " does not exist (a volatile journal, or none)");
        return;
      }
      command.addAll(List.of("-D", logs.toString(), "-u", "kvprov.service"));
    } else {
      command.addAll(List.of("-b", "-u", "kvprov.service"));
    }
    command.addAll(List.of("--no-pager", "-o", "short-iso-precise"));
    try {
      Path captured = files.work("journal");
      Process p =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(captured.toFile())
              .start();
      p.getOutputStream().close();
      boolean ended = p.waitFor(wait.toMillis(), TimeUnit.MILLISECONDS);
      if (!ended) {
        p.destroyForcibly(); // what it wrote so far is kept
      }
      Path spool = files.work("part");
      try (Reader in = Files.newBufferedReader(captured, UTF_8);
          OutputStream file = Files.newOutputStream(spool);
          PartWriter text = new PartWriter(file, users::redact, BundleFiles.MAX_PART_BYTES)) {
        in.transferTo(text);
        if (!ended) {
          text.write("\n[journalctl did not end within " + wait.toSeconds() + " s: cut there]\n");
        }
      }
      Files.delete(captured);
      files.add("journal/kvprov.service.txt", spool, String.join(" ", command));
    } catch (IOException e) {
      manifest.add("no journal: " + IoErrors.reason(e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      manifest.add("no journal: interrupted");
    }
  }
}
