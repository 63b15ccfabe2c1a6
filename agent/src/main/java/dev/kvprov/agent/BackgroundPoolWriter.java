package dev.kvprov.agent;

import dev.kvprov.agent.state.VerdictGenerations;
import dev.kvprov.kvp.KvpLimits;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.RecordCodec;
import dev.kvprov.otel.LateRecordWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Hands the records a locked pool kept out of the run to a {@code kvprov late-records} process that
 * outlives this one: the run ends, and logins start, while it waits for the lock. Under systemd it
 * stays in kvprov.service's control group (the unit is {@code RemainAfterExit}, so it is left to
 * run) and its lines go to the journal; elsewhere they go to {@code late-records.log} in the state
 * directory.
 */
final class BackgroundPoolWriter implements LateRecordWriter {
  /** The longest the run waits for the writer to take the records (its JVM must start first). */
  static final Duration HANDOVER = Duration.ofSeconds(15);

  private final Duration wait;
  private final Optional<Path> archive;
  private final Optional<Instant> bootTime;
  private final Path log;
  private final Map<String, String> environment;
  private final VerdictGenerations verdicts;

  /**
   * @param verdicts where the run took the number of its report: the writer gives up the report if
   *     a newer run took a higher one
   */
  BackgroundPoolWriter(
      Duration wait,
      Optional<Path> archive,
      Optional<Instant> bootTime,
      Path log,
      Map<String, String> environment,
      VerdictGenerations verdicts) {
    this.verdicts = verdicts;
    this.wait = wait;
    this.archive = archive;
    this.bootTime = bootTime;
    this.log = log;
    this.environment = environment;
  }

  @Override
  public String takeOver(PoolFile pool, List<KvpRecord> appends, List<KvpRecord> upserts)
      throws IOException {
    ByteArrayOutputStream records = new ByteArrayOutputStream();
    for (KvpRecord record : appends) {
      records.write(RecordCodec.encode(record, KvpLimits.HOST_SAFE));
    }
    for (KvpRecord record : upserts) {
      records.write(RecordCodec.encode(record, KvpLimits.HOST_SAFE));
    }
    boolean journal = environment.containsKey("JOURNAL_STREAM");
    ProcessBuilder builder =
        new ProcessBuilder(command(pool.path(), upserts.size()))
            .redirectError(journal ? ProcessBuilder.Redirect.INHERIT : logFile());
    Process writer = builder.start();
    if (!handOver(writer, records.toByteArray())) {
      writer.destroyForcibly();
      throw new IOException(
          "the background writer did not take the records within " + HANDOVER.toSeconds() + " s");
    }
    return "a background writer (pid "
        + writer.pid()
        + ") that waits up to "
        + String.format(Locale.ROOT, "%.0f", wait.toMillis() / 1000.0)
        + " s for the lock; it logs "
        + (journal ? "to the journal" : "to " + log);
  }

  /** The launcher's JNA options (bin/lib/launch.sh), which the writer's JVM needs as well. */
  private static final List<String> JNA_PROPERTIES =
      List.of("jna.boot.library.path", "jna.nounpack", "jna.tmpdir");

  private List<String> command(Path pool, int upserts) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // A small, short-lived JVM, started as the launchers start theirs (bin/lib/jvm): it only waits
    // and appends, and its stdout is the hand-over channel, where no JVM warning may go.
    command.addAll(JvmOptions.of("common", "late-records"));
    // JNA as the launcher set it up for this JVM: the package's native part, nothing unpacked
    // (without them the writer would unpack a copy into root's ~/.cache at every late boot)
    for (String property : JNA_PROPERTIES) {
      String value = System.getProperty(property);
      if (value != null) {
        command.add("-D" + property + "=" + value);
      }
    }
    command.addAll(
        List.of(
            "-cp",
            System.getProperty("java.class.path"),
            Main.class.getName(),
            "late-records",
            "--pool",
            pool.toString(),
            "--wait-secs",
            String.format(Locale.ROOT, "%.3f", wait.toMillis() / 1000.0),
            "--upserts",
            Integer.toString(upserts)));
    archive.ifPresent(a -> command.addAll(List.of("--archive", a.toString())));
    bootTime.ifPresent(t -> command.addAll(List.of("--boot-time", t.toString())));
    // The number of the report it carries, if this run wrote one: it speaks for this run only.
    verdicts
        .taken()
        .ifPresent(
            n ->
                command.addAll(
                    List.of(
                        "--generation",
                        Long.toString(n),
                        "--state-directory",
                        verdicts.directory().toString())));
    return command;
  }

  /** Where the writer's lines go outside the journal; nowhere if that file cannot be made. */
  private ProcessBuilder.Redirect logFile() {
    try {
      Files.createDirectories(log.getParent());
      return ProcessBuilder.Redirect.appendTo(log.toFile());
    } catch (IOException e) {
      return ProcessBuilder.Redirect.DISCARD;
    }
  }

  /**
   * Writes the records to the writer's stdin and waits, within {@link #HANDOVER}, for it to say it
   * has them all: a writer that dies at start must not count as taking them.
   */
  private static boolean handOver(Process writer, byte[] records) throws IOException {
    IOException[] failed = new IOException[1];
    Thread feeder =
        new Thread(
            () -> {
              try (OutputStream in = writer.getOutputStream();
                  java.io.BufferedReader out = writer.inputReader()) {
                in.write(records);
                in.close();
                String answer = out.readLine();
                if (!LateRecordsCommand.TAKEN.equals(answer)) {
                  failed[0] = new IOException("it exited with " + writer.waitFor());
                }
              } catch (IOException e) {
                failed[0] = e;
              } catch (InterruptedException e) {
                failed[0] = new IOException("interrupted");
              }
            },
            "kvprov-late-records-handover");
    feeder.setDaemon(true);
    feeder.start();
    try {
      feeder.join(HANDOVER.toMillis());
      if (feeder.isAlive()) {
        return false;
      }
      if (failed[0] != null) {
        // The writer died at start (it says why in its log): not taken.
        throw new IOException("the background writer stopped: " + failed[0].getMessage());
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
