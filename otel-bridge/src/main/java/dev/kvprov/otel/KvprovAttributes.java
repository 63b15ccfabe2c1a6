package dev.kvprov.otel;

import io.opentelemetry.api.common.AttributeKey;

/**
 * The attributes kvprov's sinks read to tell how severe a span or span event is: the KVP key's
 * level, the stderr mirror's level and its journal priority.
 */
public final class KvprovAttributes {
  /**
   * On a span event: its level, {@code debug}, {@code info}, {@code warn} or {@code error} (default
   * info; an {@code exception} event is error).
   */
  public static final AttributeKey<String> LEVEL = AttributeKey.stringKey("kvprov.level");

  /**
   * On a span that did not fail (its status is not error): what went wrong all the same, in plain
   * words. Its end is then a WARN record and a WARN line, not an ERROR one: an attempt that failed
   * and is tried again, say, so that {@code journalctl -p err} stays quiet on a boot that
   * recovered.
   */
  public static final AttributeKey<String> WARNING = AttributeKey.stringKey("kvprov.warning");

  /**
   * On a span that did not fail: what it found, in one line, which {@code kvp tree} shows after
   * {@code ok} (the network snapshot of a failed run).
   */
  public static final AttributeKey<String> SUMMARY = AttributeKey.stringKey("kvprov.summary");

  private KvprovAttributes() {}
}
