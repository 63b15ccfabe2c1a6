package dev.kvprov.agent.config;

import dev.kvprov.agent.config.ConfigFinding.Severity;
import java.net.URI;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * azure-init's keys that kvprov cannot honour as azure-init does: each one a file sets to other
 * than its default is a warning saying why and what kvprov does instead, so that no azure-init
 * setting is silently dropped. (Its default is what kvprov does, so stating it changes nothing.)
 */
final class AzureInitKeys {
  /** The only path of the JSON health report; kvprov derives it from the wireserver's address. */
  static final String HEALTH_PATH = "/provisioning/health";

  /** The keys kvprov has no use for, and why: set to other than the default, each is a warning. */
  private static final Map<ConfigKey, String> IGNORED =
      new EnumMap<>(
          Map.of(
              ConfigKey.PROXY_AGENT_ENABLE,
              "kvprov does not talk to the Azure Proxy Agent (azure-init does not either)",
              ConfigKey.TELEMETRY_KVP_FILTER,
              "kvprov does not filter KVP records by level; telemetry.record_budget bounds them,"
                  + " debug records dropped first",
              ConfigKey.AZURE_INIT_LOG_PATH,
              "kvprov writes no log file; its lines go to stderr (the journal), and"
                  + " /etc/kvprov/logback.xml can add a file"));

  private AzureInitKeys() {}

  static void check(Map<ConfigKey, Setting> settings, List<ConfigFinding> findings) {
    IGNORED.forEach(
        (key, why) -> {
          Setting setting = settings.get(key);
          if (changed(setting)) {
            warn(findings, setting, key.key + " is ignored: " + why);
          }
        });
    Setting health = settings.get(ConfigKey.WIRESERVER_HEALTH_ENDPOINT);
    if (changed(health)) {
      String path = URI.create((String) health.value()).getPath();
      if (!HEALTH_PATH.equals(path)) {
        warn(
            findings,
            health,
            "wireserver.health_endpoint's path "
                + (path == null || path.isEmpty() ? "(none)" : path)
                + " is ignored: kvprov reports health to "
                + HEALTH_PATH
                + " on its host");
      }
      Setting wireserver = settings.get(ConfigKey.WIRESERVER_ENDPOINT);
      if (changed(wireserver)
          && !origin((String) health.value())
              .equals(((String) wireserver.value()).replaceAll("/+$", ""))) {
        warn(
            findings,
            health,
            "wireserver.health_endpoint's host is ignored: wireserver.endpoint names another,"
                + " and is used");
      }
    }
    Setting request = settings.get(ConfigKey.IMDS_REQUEST_TIMEOUT);
    Setting read = settings.get(ConfigKey.IMDS_READ_TIMEOUT);
    if (set(request) && set(read) && !request.value().equals(read.value())) {
      warn(
          findings,
          request,
          "imds.request_timeout_secs is ignored: imds.read_timeout_secs is set too, and is used");
    }
  }

  /** The scheme, host and port of a URL: where the wireserver is. */
  static String origin(String url) {
    URI uri = URI.create(url);
    return uri.getScheme() + "://" + uri.getRawAuthority();
  }

  /** Whether a file set the key. */
  static boolean set(Setting setting) {
    return !setting.origin().equals("default");
  }

  /** Whether a file set the key to other than its default. */
  private static boolean changed(Setting setting) {
    return set(setting) && !setting.value().equals(ConfigKey.byKey(setting.key()).defaultValue);
  }

  /** A warning at the file and line the setting came from ({@code FILE:LINE}). */
  private static void warn(List<ConfigFinding> findings, Setting setting, String message) {
    String origin = setting.origin();
    int colon = origin.lastIndexOf(':');
    int line = 0;
    String file = origin;
    if (colon > 0 && origin.substring(colon + 1).matches("[0-9]{1,9}")) {
      line = Integer.parseInt(origin.substring(colon + 1));
      file = origin.substring(0, colon);
    }
    findings.add(new ConfigFinding(Path.of(file), line, 0, Severity.WARNING, message));
  }
}
