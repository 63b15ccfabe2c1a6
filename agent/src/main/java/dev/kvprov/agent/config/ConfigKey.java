package dev.kvprov.agent.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Every key the agent understands: azure-init's (so an existing azure-init configuration works
 * unchanged) and kvprov's own, each with its type, default and the values it accepts.
 */
enum ConfigKey {
  SSH_AUTHORIZED_KEYS_PATH("ssh.authorized_keys_path", Type.STRING, ".ssh/authorized_keys"),
  SSH_QUERY_SSHD_CONFIG("ssh.query_sshd_config", Type.BOOLEAN, true),
  SSH_AUTHORIZED_KEYS_DIR("ssh.authorized_keys_dir", Type.HOME_DIRECTORY, ""),
  SSH_SSHD_DROP_IN("ssh.sshd_drop_in", Type.DROP_IN, "00-kvprov.conf"),
  SSH_CLIENT_ALIVE_INTERVAL("ssh.client_alive_interval", Type.WHOLE_SECONDS, 0L),
  HOSTNAME_PUBLISH("hostname.publish", Type.BOOLEAN, true),
  SSH_CONFIGURE_PASSWORD_AUTHENTICATION(
      "ssh.configure_sshd_password_authentication", Type.BOOLEAN, true),
  HOSTNAME_BACKENDS(
      "hostname_provisioners.backends",
      Type.choices("hostnamectl", "hostname-file"),
      List.of("hostnamectl")),
  USER_BACKENDS("user_provisioners.backends", Type.choices("useradd"), List.of("useradd")),
  PASSWORD_BACKENDS(
      "password_provisioners.backends", Type.choices("passwd", "chpasswd"), List.of("passwd")),
  USER_GROUPS(
      "user.groups",
      Type.STRING_LIST,
      List.of(
          "adm", "audio", "cdrom", "dialout", "dip", "floppy", "lxd", "netdev", "plugdev", "sudo",
          "video")),
  IMDS_ENDPOINT("imds.endpoint", Type.URL, "http://169.254.169.254"),
  IMDS_CONNECTION_TIMEOUT("imds.connection_timeout_secs", Type.SECONDS, 2.0),
  IMDS_READ_TIMEOUT("imds.read_timeout_secs", Type.SECONDS, 60.0),
  IMDS_REQUEST_TIMEOUT("imds.request_timeout_secs", Type.SECONDS, 60.0),
  IMDS_RETRY_INTERVAL("imds.retry_interval_secs", Type.SECONDS, 2.0),
  IMDS_TOTAL_RETRY_TIMEOUT("imds.total_retry_timeout_secs", Type.SECONDS, 300.0),
  PROVISIONING_OFFLINE("provisioning.offline", Type.BOOLEAN, false),
  PPS_NIC_DETACH_TIMEOUT("preprovisioning.nic_detach_timeout_secs", Type.SECONDS, 300.0),
  PPS_NIC_ATTACH_TIMEOUT("preprovisioning.nic_attach_timeout_secs", Type.SECONDS, 0.0), // none
  MEDIA_ENABLE("provisioning_media.enable", Type.BOOLEAN, true),
  MEDIA_DEVICES("provisioning_media.devices", Type.STRING_LIST, List.of("/dev/sr0")),
  PROXY_AGENT_ENABLE("azure_proxy_agent.enable", Type.BOOLEAN, true),
  WIRESERVER_ENDPOINT("wireserver.endpoint", Type.URL, "http://168.63.129.16"),
  WIRESERVER_PROTOCOL("wireserver.protocol", Type.choice("json", "xml"), "json"),
  WIRESERVER_REPORT_IN_PROGRESS("wireserver.report_in_progress", Type.BOOLEAN, false),
  WIRESERVER_CONNECTION_TIMEOUT("wireserver.connection_timeout_secs", Type.SECONDS, 2.0),
  WIRESERVER_READ_TIMEOUT("wireserver.read_timeout_secs", Type.SECONDS, 60.0),
  WIRESERVER_TOTAL_RETRY_TIMEOUT("wireserver.total_retry_timeout_secs", Type.SECONDS, 1200.0),
  WIRESERVER_HEALTH_ENDPOINT(
      "wireserver.health_endpoint", Type.URL, "http://168.63.129.16/provisioning/health"),
  TELEMETRY_KVP_DIAGNOSTICS("telemetry.kvp_diagnostics", Type.BOOLEAN, true),
  TELEMETRY_KVP_FILTER("telemetry.kvp_filter", Type.STRING, ""),
  TELEMETRY_KVP_DIRECTORY("telemetry.kvp_directory", Type.STRING, "/var/lib/hyperv"),
  TELEMETRY_RECORD_BUDGET("telemetry.record_budget", Type.INTEGER, 300L),
  TELEMETRY_ARCHIVE_DIRECTORY(
      "telemetry.archive_directory", Type.STRING, "/var/lib/kvprov/kvp-archive"),
  TELEMETRY_STDERR_LEVEL(
      "telemetry.stderr_level", Type.choice("debug", "info", "warn", "error", "off"), "info"),
  TELEMETRY_OTLP_ENDPOINT("telemetry.otlp_endpoint", Type.STRING, ""),
  TELEMETRY_KVP_LOCK_TIMEOUT("telemetry.kvp_lock_timeout_secs", Type.SECONDS, 5.0),
  KVP_FORMATS("kvp.formats", Type.KVP_FORMATS, List.of("kvprov")),
  TELEMETRY_LATE_RECORDS_WAIT("telemetry.late_records_wait_secs", Type.SECONDS, 600.0),
  STATE_DIRECTORY("state.directory", Type.STRING, "/var/lib/kvprov"),
  AZURE_INIT_DATA_DIR("azure_init_data_dir.path", Type.STRING, "/var/lib/azure-init"),
  AZURE_INIT_LOG_PATH("azure_init_log_path.path", Type.STRING, "/var/log/azure-init.log");

  final String key;
  final Type type;
  final Object defaultValue;

  ConfigKey(String key, Type type, Object defaultValue) {
    this.key = key;
    this.type = type;
    this.defaultValue = defaultValue;
  }

  static ConfigKey byKey(String key) {
    for (ConfigKey k : values()) {
      if (k.key.equals(key)) {
        return k;
      }
    }
    return null;
  }

  /** The sections (tables) that hold keys: anything else at the top level is unknown. */
  static boolean isSection(String name) {
    for (ConfigKey k : values()) {
      if (k.key.startsWith(name + ".")) {
        return true;
      }
    }
    return false;
  }

  /** A value type, and how a TOML value is checked against it. */
  record Type(String name, List<String> allowed, boolean list) {
    static final Type STRING = new Type("a string", List.of(), false);
    static final Type URL = new Type("an http:// or https:// URL", List.of(), false);
    static final Type BOOLEAN = new Type("true or false", List.of(), false);
    static final Type SECONDS =
        new Type("a number of seconds (finite, not negative)", List.of(), false);
    static final Type INTEGER = new Type("a whole number from 10 to 100000", List.of(), false);
    static final Type STRING_LIST = new Type("a list of strings", List.of(), true);
    static final Type HOME_DIRECTORY =
        new Type(
            "a directory inside the home, relative to it (no leading /, no .., no %), or \"\"",
            List.of(), false);
    static final Type WHOLE_SECONDS =
        new Type("a whole number of seconds from 0 (off) to 86400", List.of(), false);

    /**
     * kvprov's own records always: the budget, {@code kvp status} and the next run read them;
     * azure-init's {@code DIAG} form is a second copy for host tools that read only that.
     */
    static final Type KVP_FORMATS =
        new Type(
            "a list of \"kvprov\" and \"diag\" that holds \"kvprov\"",
            List.of("kvprov", "diag"),
            true);

    static final Type DROP_IN =
        new Type("a file name ending in .conf, without a directory", List.of(), false);

    static Type choice(String... allowed) {
      return new Type("one of " + String.join(", ", allowed), List.of(allowed), false);
    }

    static Type choices(String... allowed) {
      return new Type("a non-empty list of " + String.join(", ", allowed), List.of(allowed), true);
    }

    /** The checked value, or throws with what was expected. */
    Object check(JsonNode node) {
      if (this == BOOLEAN) {
        if (!node.isBoolean()) {
          throw new IllegalArgumentException();
        }
        return node.booleanValue();
      }
      if (this == SECONDS) {
        if (!node.isNumber() || !Double.isFinite(node.doubleValue()) || node.doubleValue() < 0) {
          throw new IllegalArgumentException();
        }
        return node.doubleValue();
      }
      if (this == INTEGER) {
        if (!node.isIntegralNumber() || node.longValue() < 10 || node.longValue() > 100_000) {
          throw new IllegalArgumentException();
        }
        return node.longValue();
      }
      if (this == WHOLE_SECONDS) {
        if (!node.isIntegralNumber() || node.longValue() < 0 || node.longValue() > 86_400) {
          throw new IllegalArgumentException();
        }
        return node.longValue();
      }
      if (list) {
        if (!node.isArray() || (!allowed.isEmpty() && node.isEmpty())) {
          throw new IllegalArgumentException();
        }
        List<String> values = new ArrayList<>();
        for (JsonNode item : node) {
          if (!item.isTextual() || (!allowed.isEmpty() && !allowed.contains(item.textValue()))) {
            throw new IllegalArgumentException();
          }
          values.add(item.textValue());
        }
        if (this == KVP_FORMATS && !values.contains("kvprov")) {
          throw new IllegalArgumentException();
        }
        return List.copyOf(values);
      }
      if (!node.isTextual()) {
        throw new IllegalArgumentException();
      }
      String text = node.textValue();
      if (!allowed.isEmpty() && !allowed.contains(text.toLowerCase(Locale.ROOT))) {
        throw new IllegalArgumentException();
      }
      if (this == URL && !isUrl(text)) {
        throw new IllegalArgumentException();
      }
      if (this == HOME_DIRECTORY && !isInsideHome(text)) {
        throw new IllegalArgumentException();
      }
      if (this == DROP_IN && !text.matches("[A-Za-z0-9][A-Za-z0-9._-]*\\.conf")) {
        throw new IllegalArgumentException();
      }
      return allowed.isEmpty() ? text : text.toLowerCase(Locale.ROOT);
    }

    /**
     * An http:// or https:// URL that {@link java.net.URI} parses: every client of the key builds
     * one from it, and a text the pattern lets through (a port of {@code 80[[80}) would otherwise
     * fail there, as an exception, not a finding naming the key.
     */
    private static boolean isUrl(String text) {
      if (!text.matches("https?://[^\\s/]+(/\\S*)?")) {
        return false;
      }
      try {
        return new java.net.URI(text).getAuthority() != null;
      } catch (java.net.URISyntaxException e) {
        return false;
      }
    }

    /** A relative path with no way out of the home: no .., no %-token, no control character. */
    private static boolean isInsideHome(String text) {
      if (text.isEmpty()) {
        return true;
      }
      if (text.startsWith("/") || text.contains("%") || text.chars().anyMatch(c -> c < 0x20)) {
        return false;
      }
      for (String part : text.split("/")) {
        if (part.equals("..")) {
          return false;
        }
      }
      return !java.nio.file.Path.of(text).normalize().toString().isEmpty(); // not the home itself
    }
  }
}
