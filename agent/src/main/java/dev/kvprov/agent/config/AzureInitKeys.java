package dev.kvprov.agent.config;

import dev.kvprov.agent.config.ConfigFinding.Severity;
import java.net.URI;
import java.nio.file.Path;
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

  private AzureInitKeys() {}

  static void check(Map<ConfigKey, Setting> settings, List<ConfigFinding> findings) {
    Setting proxy = settings.get(ConfigKey.PROXY_AGENT_ENABLE);
    if (changed(proxy)) {
      warn(
          findings,
          proxy,
          "azure_proxy_agent.enable is ignored: kvprov does not talk to the Azure Proxy Agent"
              + " (azure-init does not either)");
    }
    Setting filter = settings.get(ConfigKey.TELEMETRY_KVP_FILTER);
    if (changed(filter)) {
      warn(
          findings,
          filter,
          "telemetry.kvp_filter is ignored: kvprov does not filter KVP records by level;"
              + " telemetry.record_budget bounds them, debug records dropped first");
    }
    Setting log = settings.get(ConfigKey.AZURE_INIT_LOG_PATH);
    if (changed(log)) {
      warn(
          findings,
          log,
          "azure_init_log_path.path is ignored: kvprov writes no log file; its lines go to stderr"
              + " (the journal), and /etc/kvprov/logback.xml can add a file");
    }
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
      if (changed(settings.get(ConfigKey.WIRESERVER_ENDPOINT))) {
        warn(
            findings,
            health,
            "wireserver.health_endpoint is ignored: wireserver.endpoint is set too, and is used");
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
