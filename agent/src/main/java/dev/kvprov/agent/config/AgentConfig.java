package dev.kvprov.agent.config;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The agent's effective configuration: defaults, then {@code /etc/kvprov/kvprov.toml}, then its
 * drop-ins, then {@code --config}, later winning key by key; each value with its origin.
 */
public final class AgentConfig {
  private final Map<ConfigKey, Setting> settings;
  private final List<ConfigFinding> warnings;
  private final List<Path> files;
  private final boolean azureInitFiles;

  AgentConfig(
      Map<ConfigKey, Setting> settings,
      List<ConfigFinding> warnings,
      List<Path> files,
      boolean azureInitFiles) {
    this.settings = new EnumMap<>(settings);
    this.warnings = List.copyOf(warnings);
    this.files = List.copyOf(files);
    this.azureInitFiles = azureInitFiles;
  }

  /** The built-in defaults alone. */
  public static AgentConfig defaults() {
    return new AgentConfig(ConfigLoader.defaults(), List.of(), List.of(), false);
  }

  /** Whether kvprov's own files were absent and azure-init's were read in their place. */
  public boolean readAzureInitFiles() {
    return azureInitFiles;
  }

  /** Every key with its value and origin, in a stable order. */
  public List<Setting> settings() {
    return settings.values().stream().sorted(java.util.Comparator.comparing(Setting::key)).toList();
  }

  /** Non-fatal findings (unknown keys), each naming file and line. */
  public List<ConfigFinding> warnings() {
    return warnings;
  }

  /** The configuration files read, in order; none when the defaults alone apply. */
  public List<Path> files() {
    return files;
  }

  /** Whether the wireserver's endpoint was given by a file, not the built-in one. */
  public boolean wireserverConfigured() {
    return AzureInitKeys.set(settings.get(ConfigKey.WIRESERVER_ENDPOINT))
        || AzureInitKeys.set(settings.get(ConfigKey.WIRESERVER_HEALTH_ENDPOINT));
  }

  /** Whether IMDS's endpoint was given by a file, not the built-in one. */
  public boolean imdsConfigured() {
    return !settings.get(ConfigKey.IMDS_ENDPOINT).origin().equals("default");
  }

  /** Settings for the instance metadata service client. */
  public record Imds(
      URI endpoint,
      Duration connectTimeout,
      Duration readTimeout,
      Duration retryInterval,
      Duration totalTimeout) {}

  /** Settings for health reports to the wireserver. */
  public record Wireserver(
      URI endpoint,
      String protocol,
      Duration connectTimeout,
      Duration readTimeout,
      Duration totalTimeout) {}

  /** Settings for the telemetry sinks. */
  public record Telemetry(
      boolean kvp,
      Path kvpDirectory,
      int recordBudget,
      Path archiveDirectory,
      String stderrLevel,
      String otlpEndpoint,
      Duration kvpLockTimeout,
      Duration lateRecordsWait,
      boolean diagRecords) {}

  /**
   * How long a Savable pre-provisioned VM waits, after the pool's Ready, for its NIC to be taken
   * away, then for its customer's NIC to be up.
   */
  public record Preprovisioning(Duration nicDetachTimeout, Duration nicAttachTimeout) {}

  public Preprovisioning preprovisioning() {
    return new Preprovisioning(
        seconds(ConfigKey.PPS_NIC_DETACH_TIMEOUT), seconds(ConfigKey.PPS_NIC_ATTACH_TIMEOUT));
  }

  public Imds imds() {
    return new Imds(
        URI.create(string(ConfigKey.IMDS_ENDPOINT)),
        seconds(ConfigKey.IMDS_CONNECTION_TIMEOUT),
        // azure-init's code names it request_timeout_secs, its documentation read_timeout_secs
        seconds(
            AzureInitKeys.set(settings.get(ConfigKey.IMDS_READ_TIMEOUT))
                    || !AzureInitKeys.set(settings.get(ConfigKey.IMDS_REQUEST_TIMEOUT))
                ? ConfigKey.IMDS_READ_TIMEOUT
                : ConfigKey.IMDS_REQUEST_TIMEOUT),
        seconds(ConfigKey.IMDS_RETRY_INTERVAL),
        seconds(ConfigKey.IMDS_TOTAL_RETRY_TIMEOUT));
  }

  public Wireserver wireserver() {
    return new Wireserver(
        wireserverEndpoint(),
        string(ConfigKey.WIRESERVER_PROTOCOL),
        seconds(ConfigKey.WIRESERVER_CONNECTION_TIMEOUT),
        seconds(ConfigKey.WIRESERVER_READ_TIMEOUT),
        seconds(ConfigKey.WIRESERVER_TOTAL_RETRY_TIMEOUT));
  }

  /** kvprov's {@code wireserver.endpoint}, else the host of azure-init's health endpoint. */
  private URI wireserverEndpoint() {
    if (AzureInitKeys.set(settings.get(ConfigKey.WIRESERVER_ENDPOINT))
        || !AzureInitKeys.set(settings.get(ConfigKey.WIRESERVER_HEALTH_ENDPOINT))) {
      return URI.create(string(ConfigKey.WIRESERVER_ENDPOINT));
    }
    return URI.create(AzureInitKeys.origin(string(ConfigKey.WIRESERVER_HEALTH_ENDPOINT)));
  }

  public Telemetry telemetry() {
    return new Telemetry(
        bool(ConfigKey.TELEMETRY_KVP_DIAGNOSTICS),
        Path.of(string(ConfigKey.TELEMETRY_KVP_DIRECTORY)),
        (int) (long) (Long) value(ConfigKey.TELEMETRY_RECORD_BUDGET),
        Path.of(string(ConfigKey.TELEMETRY_ARCHIVE_DIRECTORY)),
        string(ConfigKey.TELEMETRY_STDERR_LEVEL),
        string(ConfigKey.TELEMETRY_OTLP_ENDPOINT),
        seconds(ConfigKey.TELEMETRY_KVP_LOCK_TIMEOUT),
        seconds(ConfigKey.TELEMETRY_LATE_RECORDS_WAIT),
        ((List<?>) value(ConfigKey.KVP_FORMATS)).contains("diag"));
  }

  /**
   * Whether {@code provision} touches no platform (an image build): the media directory alone, no
   * IMDS, no wireserver, no marker.
   */
  public boolean offline() {
    return bool(ConfigKey.PROVISIONING_OFFLINE);
  }

  public boolean mediaEnabled() {
    return bool(ConfigKey.MEDIA_ENABLE);
  }

  public List<String> mediaDevices() {
    return list(ConfigKey.MEDIA_DEVICES);
  }

  public Path stateDirectory() {
    return Path.of(string(ConfigKey.STATE_DIRECTORY));
  }

  /**
   * Where azure-init keeps its provisioned markers; a VM it provisioned is not provisioned again.
   */
  public Path azureInitDataDirectory() {
    return Path.of(string(ConfigKey.AZURE_INIT_DATA_DIR));
  }

  /**
   * Whether sshd's {@code PasswordAuthentication} is set as the platform asks (azure-init's key).
   */
  public boolean configureSshdPasswordAuthentication() {
    return bool(ConfigKey.SSH_CONFIGURE_PASSWORD_AUTHENTICATION);
  }

  public String authorizedKeysPath() {
    return string(ConfigKey.SSH_AUTHORIZED_KEYS_PATH);
  }

  /**
   * A directory of key fragments relative to the home ({@code .ssh/authorized_keys.d} on immutable
   * images), whose file {@code kvprov} gets the keys; empty for the one authorized_keys file.
   */
  public String authorizedKeysDirectory() {
    return string(ConfigKey.SSH_AUTHORIZED_KEYS_DIR);
  }

  /** The file name of kvprov's drop-in in {@code /etc/ssh/sshd_config.d}. */
  public String sshdDropIn() {
    return string(ConfigKey.SSH_SSHD_DROP_IN);
  }

  /** sshd's ClientAliveInterval, in seconds; 0 leaves sshd's own setting alone. */
  public long clientAliveInterval() {
    return (Long) value(ConfigKey.SSH_CLIENT_ALIVE_INTERVAL);
  }

  /** Whether the host name is sent to Azure's DNS in a renewed DHCP lease. */
  public boolean publishHostname() {
    return bool(ConfigKey.HOSTNAME_PUBLISH);
  }

  public boolean querySshdConfig() {
    return bool(ConfigKey.SSH_QUERY_SSHD_CONFIG);
  }

  /** Supplementary groups for the admin user (those the system lacks are skipped). */
  public List<String> userGroups() {
    return list(ConfigKey.USER_GROUPS);
  }

  /** Whether "provisioning in progress" is reported to the wireserver before the OS steps. */
  public boolean reportInProgress() {
    return bool(ConfigKey.WIRESERVER_REPORT_IN_PROGRESS);
  }

  public List<String> hostnameBackends() {
    return list(ConfigKey.HOSTNAME_BACKENDS);
  }

  public List<String> userBackends() {
    return list(ConfigKey.USER_BACKENDS);
  }

  public List<String> passwordBackends() {
    return list(ConfigKey.PASSWORD_BACKENDS);
  }

  private Object value(ConfigKey key) {
    return settings.get(key).value();
  }

  private String string(ConfigKey key) {
    return (String) value(key);
  }

  private boolean bool(ConfigKey key) {
    return (Boolean) value(key);
  }

  private Duration seconds(ConfigKey key) {
    return Duration.ofNanos(Math.round((Double) value(key) * 1e9));
  }

  @SuppressWarnings("unchecked")
  private List<String> list(ConfigKey key) {
    return (List<String>) value(key);
  }
}
