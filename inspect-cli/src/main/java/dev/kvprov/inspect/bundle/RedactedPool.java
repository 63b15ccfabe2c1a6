package dev.kvprov.inspect.bundle;

import dev.kvprov.kvp.KvpLimits;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.RecordCodec;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * A pool copied with its user names replaced, record by record. A writer splits a long value over
 * records wherever the bytes run out, so a name may be cut between the end of one record and the
 * start of the next, where neither holds it whole: each record is held until the next is seen, and
 * a name cut between them is replaced as one.
 */
final class RedactedPool {
  private final UserNames users;
  private final OutputStream out;

  /** The record read last, its key replaced, its value not yet: the next may finish a name. */
  private KvpRecord held;

  private IOException failed;

  private RedactedPool(UserNames users, OutputStream out) {
    this.users = users;
    this.out = out;
  }

  /** {@code pool}'s records, names replaced, to {@code out}. */
  static void copy(InputStream pool, UserNames users, OutputStream out) throws IOException {
    RedactedPool copy = new RedactedPool(users, out);
    RecordCodec.scan(pool, entry -> copy.next(entry.record()));
    copy.release();
    if (copy.failed != null) {
      throw copy.failed;
    }
  }

  private void next(KvpRecord r) {
    String key = users.redact(r.key());
    if (compressed(r.key())) {
      // a name inside a compressed payload cannot be found without decoding it
      release();
      write(new KvpRecord(key, "[redacted: compressed payload]"));
      return;
    }
    String value = r.value();
    if (held != null) {
      UserNames.Cut cut = users.cutBetween(held.value(), value);
      if (cut != null) {
        String before = held.value().substring(0, held.value().length() - cut.head());
        String after = value.substring(cut.name().length() - cut.head());
        String replacement = UserNames.replacement(cut.name());
        // the replacement where the name began, if the record has room; else where it ended
        KvpRecord whole = new KvpRecord(held.key(), users.redact(before) + replacement);
        if (fits(whole)) {
          held = whole;
          value = after;
        } else {
          held = new KvpRecord(held.key(), users.redact(before));
          value = replacement + after;
        }
        write(held);
        held = new KvpRecord(key, value);
        return;
      }
    }
    release();
    held = new KvpRecord(key, value);
  }

  /** The held record, its value's names replaced (it has no successor that finishes one). */
  private void release() {
    if (held != null) {
      write(new KvpRecord(held.key(), users.redact(held.value())));
      held = null;
    }
  }

  private void write(KvpRecord r) {
    byte[] bytes;
    try {
      bytes = RecordCodec.encode(r, KvpLimits.WIRE);
    } catch (IllegalArgumentException e) {
      // longer than a record holds once names were replaced: nothing of it rather than a name
      bytes = RecordCodec.encode(new KvpRecord(r.key(), "[redacted]"), KvpLimits.WIRE);
    }
    try {
      if (failed == null) {
        out.write(bytes);
      }
    } catch (IOException e) {
      failed = e;
    }
  }

  private static boolean fits(KvpRecord r) {
    try {
      RecordCodec.encode(r, KvpLimits.WIRE);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** A record whose value is compressed: azure-init's encoded payloads, cloud-init's dmesg. */
  private static boolean compressed(String key) {
    return key.contains("|gz+b64|")
        || key.contains("|zlib+b64|")
        || key.contains("|b64|")
        || key.startsWith("CLOUD_INIT|") && key.contains("|compressed|");
  }
}
