package dev.kvprov.otel;

import static java.util.Objects.requireNonNull;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * One line of the stderr mirror, e.g. {@code [ 12.345s] INFO provision/imds.fetch: ok (0.231s)}:
 * when, how severe, and what (the span path and what became of it, or a log's message).
 *
 * @param level the record's level
 * @param time seconds since boot ({@code 12.345s}), or the UTC time when the boot's is unknown
 * @param what the span path, a colon, and the text
 */
public record StderrLine(KvprovRecord.Level level, String time, String what) {
  public StderrLine {
    requireNonNull(level, "level");
    requireNonNull(time, "time");
    requireNonNull(what, "what");
  }

  /** The line as a serial console shows it, without its line break. */
  public String text() {
    // One line per record, whatever the text holds: a line break would split it in the journal.
    return String.format(Locale.ROOT, "[%11s] %-5s ", time, level)
        + what.replace("\r", "\\r").replace("\n", "\\n");
  }

  /**
   * The line as the journal takes it: its syslog priority first ({@code <3>} error … {@code <7>}
   * debug), so that {@code journalctl -p} filters work.
   */
  public String journalText() {
    return priority(level) + text();
  }

  private static String priority(KvprovRecord.Level level) {
    return switch (level) {
      case ERROR -> "<3>";
      case WARN -> "<4>";
      case INFO -> "<6>";
      case DEBUG -> "<7>";
    };
  }

  /**
   * Whether stderr is connected to the journal: systemd sets {@code JOURNAL_STREAM} to the device
   * and inode of that stream, which must match what fd 2 is now (it may have been redirected
   * since).
   */
  public static boolean stderrIsJournal(Map<String, String> environment) {
    String stream = environment.get("JOURNAL_STREAM");
    if (stream == null || !stream.matches("\\d+:\\d+")) {
      return false;
    }
    try {
      Path fd2 = Path.of("/proc/self/fd/2");
      Object dev = Files.getAttribute(fd2, "unix:dev");
      Object ino = Files.getAttribute(fd2, "unix:ino");
      return stream.equals(dev + ":" + ino);
    } catch (Exception e) {
      return false;
    }
  }
}
