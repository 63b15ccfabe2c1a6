package dev.kvprov.kvp;

/**
 * The deterministic records every test writer appends, so a reader can check each one exactly: key
 * {@code writer|seq}, a value whose length and characters vary with {@code seq}. {@code
 * pool_peer.py} builds the same strings.
 */
final class PeerRecords {
  private PeerRecords() {}

  static KvpRecord record(String writer, int seq) {
    return new KvpRecord(writer + "|" + seq, value(writer, seq));
  }

  static String value(String writer, int seq) {
    return writer + ":" + seq + ":" + "ü".repeat(seq % 97) + "x".repeat(seq * 13 % 400);
  }
}
