package dev.kvprov.agent;

import dev.kvprov.agent.provision.ProvisioningRun;
import dev.kvprov.otel.ProvisioningStatus;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The exit statuses of {@code kvprov}, defined once: every command's help footer says them from
 * here (in its own words where a status means something of its own), and docs/commands.md is
 * checked against them by a test. The codes of a provisioning run are {@link
 * ProvisioningRun.Exit}'s (the run decides them); what {@code status} says with 4 is {@link
 * ProvisioningStatus}'s, shared with {@code kvp status}.
 */
enum ExitCode {
  OK(ProvisioningRun.Exit.OK, "ok"),
  FAILED(1, "failed"),
  USAGE(ProvisioningRun.Exit.CONFIG, "usage error"),
  IO(3, "I/O error"),
  NO_VERDICT(ProvisioningStatus.NO_VERDICT, ProvisioningStatus.NO_VERDICT_MEANING),
  IMDS(ProvisioningRun.Exit.IMDS, "IMDS"),
  MEDIA(ProvisioningRun.Exit.MEDIA, "media"),
  HOSTNAME(ProvisioningRun.Exit.HOSTNAME, "host name"),
  USER(ProvisioningRun.Exit.USER, "user"),
  PASSWORD(ProvisioningRun.Exit.PASSWORD, "password"),
  SUDOERS(ProvisioningRun.Exit.SUDOERS, "sudoers"),
  SSHD(ProvisioningRun.Exit.SSHD, "sshd"),
  SSH_KEYS(ProvisioningRun.Exit.SSH_KEYS, "SSH keys"),
  PPS(
      ProvisioningRun.Exit.PPS,
      "a pre-provisioned VM not handed over (no NIC to watch, or none new in a set bound)"),
  GPA(ProvisioningRun.Exit.GPA, "the Guest Proxy Agent, asked for by the platform, not ready"),
  REPORT(ProvisioningRun.Exit.REPORT, "Ready not reported"),
  INTERNAL(ProvisioningRun.Exit.INTERNAL, "an internal error");

  final int code;
  final String meaning;

  ExitCode(int code, String meaning) {
    this.code = code;
    this.meaning = meaning;
  }

  ExitCode(ProvisioningRun.Exit run, String meaning) {
    this(run.code, meaning);
  }

  /** How a provisioning run ends, as kvprov's status. */
  static ExitCode of(ProvisioningRun.Exit run) {
    for (ExitCode code : values()) {
      if (code.code == run.code) {
        return code;
      }
    }
    throw new IllegalStateException("no kvprov exit status " + run.code);
  }

  /** A provisioning run's statuses, from {@code ok} to an internal error, in its own words. */
  private static final Object[] PROVISION = {
    OK,
    "provisioned (or nothing to do)",
    USAGE,
    "configuration error, or refused (not root, not Azure, a chroot, --offline without"
        + " --media-dir)",
    IMDS,
    IMDS.meaning,
    MEDIA,
    "media, or what they or IMDS say refused before any change (a field named)",
    HOSTNAME,
    HOSTNAME.meaning,
    USER,
    USER.meaning,
    PASSWORD,
    PASSWORD.meaning,
    SUDOERS,
    SUDOERS.meaning,
    SSHD,
    SSHD.meaning,
    SSH_KEYS,
    SSH_KEYS.meaning,
    PPS,
    PPS.meaning,
    GPA,
    GPA.meaning,
    REPORT,
    REPORT.meaning,
    INTERNAL,
    "an internal error (reported like the others, offline to KVP and stderr only)"
  };

  /** What a status means for one command (by its name under kvprov), where it says more. */
  private static final Map<String, Map<ExitCode, String>> OWN =
      Map.ofEntries(
          own("kvprov", USAGE, "usage error"),
          own("provision", PROVISION),
          // a demo is a provisioning run against the simulator
          own("demo", PROVISION),
          own(
              "report ready",
              OK,
              "reported",
              REPORT,
              "the wireserver did not accept it (the PROVISIONING_REPORT then says so)"),
          own(
              "report failure",
              OK,
              "reported",
              USAGE,
              "usage error, or refused: this VM was reported Ready before (--force)",
              REPORT,
              "the wireserver did not accept it (the PROVISIONING_REPORT is written all the"
                  + " same)"),
          own(
              "metadata",
              OK,
              "ok",
              FAILED,
              "KEY unknown or without a value here, or a file not written",
              USAGE,
              "configuration or usage error",
              IMDS,
              IMDS.meaning,
              MEDIA,
              MEDIA.meaning),
          own(
              "render-ignition",
              OK,
              "ok",
              FAILED,
              "the data is not valid (a host or user name) or FILE not written",
              USAGE,
              "configuration or usage error",
              IMDS,
              IMDS.meaning,
              MEDIA,
              MEDIA.meaning),
          own(
              "clean",
              OK,
              "cleaned (or nothing to clean)",
              FAILED,
              "something could not be removed (the rest is removed all the same)",
              USAGE,
              "configuration or usage error"),
          own(
              "status",
              OK,
              "succeeded",
              FAILED,
              "failed",
              IO,
              "the root or the pool cannot be read",
              NO_VERDICT,
              ProvisioningStatus.NO_VERDICT_MEANING
                  + " ("
                  + ProvisioningStatus.NO_VERDICT_WHEN
                  + ")"),
          own("config", OK, "configuration OK (warnings allowed)", FAILED, "errors found"),
          own(
              "fetch",
              OK,
              "ok",
              FAILED,
              "the configuration has errors, or IMDS or the media could not be read"),
          own("simulate", OK, "stopped"),
          own(
              "late-records",
              OK,
              "written (the report left out when a newer run reported since)",
              FAILED,
              "lost: the pool stayed locked or could not be written",
              USAGE,
              "usage error, or no records on stdin"));

  private static Map.Entry<String, Map<ExitCode, String>> own(String command, Object... pairs) {
    Map<ExitCode, String> meanings = new EnumMap<>(ExitCode.class);
    for (int i = 0; i < pairs.length; i += 2) {
      meanings.put((ExitCode) pairs[i], (String) pairs[i + 1]);
    }
    return Map.entry(command, meanings);
  }

  /** The commands whose statuses say more than the shared meanings. */
  static Set<String> commandsWithOwnWords() {
    return OWN.keySet();
  }

  /**
   * The statuses {@code command} (its name under kvprov: {@code report ready}) can end with, in
   * words: its own, then the usage error every command can give.
   */
  static Map<ExitCode, String> of(String command) {
    Map<ExitCode, String> meanings = new EnumMap<>(ExitCode.class);
    meanings.putAll(OWN.getOrDefault(command, Map.of(OK, OK.meaning)));
    meanings.putIfAbsent(USAGE, USAGE.meaning);
    return meanings;
  }

  /** {@code Exit status: 0 ok; 1 …; 2 usage error.}, folded at 78 columns. */
  static List<String> footer(String command) {
    StringBuilder text = new StringBuilder("Exit status:");
    of(command)
        .forEach(
            (code, words) ->
                text.append(' ').append(code.code).append(' ').append(words).append(';'));
    text.setCharAt(text.length() - 1, '.');
    return wrap(text.toString(), 78);
  }

  private static List<String> wrap(String text, int width) {
    List<String> lines = new ArrayList<>();
    StringBuilder line = new StringBuilder();
    for (String word : text.split(" ")) {
      if (line.length() > 0 && line.length() + 1 + word.length() > width) {
        lines.add(line.toString());
        line.setLength(0);
      }
      if (line.length() > 0) {
        line.append(' ');
      }
      line.append(word);
    }
    lines.add(line.toString());
    return lines;
  }
}
