package dev.kvprov.kvp;

import static java.util.Objects.requireNonNull;

/**
 * One key/value item of a KVP pool.
 *
 * <p>Any strings are accepted here; whether they fit a record is checked when the record is encoded
 * against a {@link KvpLimits} profile.
 */
public record KvpRecord(String key, String value) {
  public KvpRecord {
    requireNonNull(key, "key");
    requireNonNull(value, "value");
  }
}
