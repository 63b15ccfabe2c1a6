package dev.kvprov.inspect.cli;

import dev.kvprov.inspect.text.Text;
import dev.kvprov.otel.ProvisioningStatus;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The exit statuses of {@code kvp}, defined once: every command's help footer says them from here
 * (in its own words where a status means something of its own), and docs/inspect.md is checked
 * against them by a test.
 */
enum ExitCode {
  OK(0, "ok"),
  FOUND(1, "problems found, a failure, or nothing found"),
  USAGE(2, "usage error"),
  IO(3, "I/O error"),
  /** Said once for both status commands, kvp's and kvprov's: {@link ProvisioningStatus}. */
  NO_VERDICT(ProvisioningStatus.NO_VERDICT, ProvisioningStatus.NO_VERDICT_MEANING);

  final int code;
  final String meaning;

  ExitCode(int code, String meaning) {
    this.code = code;
    this.meaning = meaning;
  }

  /** What a status means for one command, where it says more than the shared meaning. */
  private static final Map<String, Map<ExitCode, String>> OWN =
      Map.ofEntries(
          own(
              "kvp",
              OK,
              "ok",
              FOUND,
              "problems found, a failure report or nothing found",
              NO_VERDICT,
              ProvisioningStatus.NO_VERDICT_MEANING + " (kvp status)"),
          own("list", OK, "ok", FOUND, "the pool has problems"),
          own("tree", OK, "ok"),
          own("blame", OK, "ok"),
          own("diff", OK, "the later boot (B) did not fail", FOUND, "the later boot (B) failed"),
          own("timeline", OK, "ok (an empty pool too)"),
          own(
              "export",
              OK,
              "exported",
              FOUND,
              "no spans in the pool",
              IO,
              "I/O error (pool unreadable, collector unreachable or refusing, file not written)"),
          own(
              "watch",
              OK,
              "stopped (Ctrl-C, --exit-after reached, --timeout, output closed)",
              FOUND,
              "--timeout ran out before --exit-after N items"),
          own(
              "report",
              OK,
              "success",
              FOUND,
              "a failure report, no report, or a run that never finished"),
          own(
              "status",
              OK,
              "succeeded",
              FOUND,
              "failed",
              NO_VERDICT,
              ProvisioningStatus.NO_VERDICT_MEANING
                  + " ("
                  + ProvisioningStatus.NO_VERDICT_WHEN
                  + ")"),
          own(
              "fleet",
              OK,
              "every VM provisioned",
              FOUND,
              "a VM failed, never finished, has no report or could not be read; or no VMs",
              IO,
              "I/O error (a directory or file named cannot be read)"),
          own(
              "bundle",
              OK,
              "written (what could not be read is listed)",
              IO,
              "the bundle could not be written"),
          own("doctor", OK, "healthy", FOUND, "problems found"),
          own("decode", OK, "ok", FOUND, "nothing to decode, or a payload that does not decode"),
          own("dump", OK, "ok", FOUND, "the pool has problems"),
          own("get", OK, "found", FOUND, "not found, or found damaged (said on stderr)"),
          own(
              "set",
              OK,
              "ok",
              USAGE,
              "usage error, or a key or value the host would cut or that is not UTF-8",
              IO,
              "I/O error, or the file is not a pool (left as it is)"),
          own(
              "delete",
              OK,
              "deleted",
              FOUND,
              "not found",
              IO,
              "I/O error, or the file is not a pool (left as it is)"),
          own(
              "append",
              OK,
              "appended",
              USAGE,
              "usage error, or a line the host would cut or that is not UTF-8 (nothing written)",
              IO,
              "I/O error, or the file is not a pool (left as it is)"),
          own(
              "clear",
              OK,
              "cleared, or left as it is (fresh, or no pool)",
              IO,
              "I/O error, the file is not a pool (left as it is), or no place for the copy"
                  + " (nothing cleared)"));

  private static Map.Entry<String, Map<ExitCode, String>> own(String command, Object... pairs) {
    Map<ExitCode, String> meanings = new EnumMap<>(ExitCode.class);
    for (int i = 0; i < pairs.length; i += 2) {
      meanings.put((ExitCode) pairs[i], (String) pairs[i + 1]);
    }
    return Map.entry(command, meanings);
  }

  /** The commands whose statuses say more than the shared meanings. */
  static java.util.Set<String> commandsWithOwnWords() {
    return OWN.keySet();
  }

  /**
   * The statuses {@code command} can end with, in words: its own, then the usage error and the I/O
   * error every command can give.
   */
  static Map<ExitCode, String> of(String command) {
    Map<ExitCode, String> meanings = new EnumMap<>(ExitCode.class);
    meanings.putAll(OWN.getOrDefault(command, Map.of(OK, OK.meaning)));
    meanings.putIfAbsent(USAGE, USAGE.meaning);
    meanings.putIfAbsent(IO, IO.meaning);
    return meanings;
  }

  /** {@code Exit status: 0 ok; 1 …; 2 usage error; 3 I/O error.}, folded at 78 columns. */
  static List<String> footer(String command) {
    StringBuilder text = new StringBuilder("Exit status:");
    of(command)
        .forEach(
            (code, words) ->
                text.append(' ').append(code.code).append(' ').append(words).append(';'));
    text.setCharAt(text.length() - 1, '.');
    return Text.wrap(text.toString(), 78, 78);
  }
}
