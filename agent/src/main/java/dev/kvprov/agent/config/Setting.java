package dev.kvprov.agent.config;

import static java.util.Objects.requireNonNull;

/**
 * One effective configuration value and where it came from.
 *
 * @param key the dotted key, e.g. {@code imds.total_retry_timeout_secs}
 * @param value the validated value (Boolean, Double, Long, String or List of String)
 * @param origin {@code default}, or {@code <file>:<line>}
 */
public record Setting(String key, Object value, String origin) {
  public Setting {
    requireNonNull(key, "key");
    requireNonNull(value, "value");
    requireNonNull(origin, "origin");
  }
}
