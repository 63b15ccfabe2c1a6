package dev.kvprov.inspect.pool;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * What an input looks like, from its first bytes: a pool, or something a tired engineer may have
 * handed over instead (a host-side export, OTLP JSON, a log). Commands read a pool only when it
 * looks like one, and say what it looks like otherwise, with the fix.
 */
public enum InputKind {
  EMPTY(null, ""),
  POOL(null, ""),
  HOST_EXPORT("looks like a host-side export (CIM-XML), not a pool file", ": use --host-xml"),
  OTLP_JSON("looks like OTLP JSON (what kvp export writes), not a pool", ": give kvp the pool"),
  TEXT("is text, not a KVP pool", " (a pool is records of 2,560 bytes, NUL-padded)"),
  ARCHIVE("looks like a tar or gzip archive, not a KVP pool", ": unpack it and give kvp the pool"),
  BINARY(
      "is not a KVP pool: no record key in its first 10 KiB",
      " (a pool is records of 2,560 bytes)");

  /** How many bytes {@link #of} looks at: the first four records. */
  public static final int HEAD_BYTES = 4 * 2560;

  private static final int KEY_BYTES = 512;
  private static final int RECORD_BYTES = 2560;

  private final String what;
  private final String fix;

  InputKind(String what, String fix) {
    this.what = what;
    this.fix = fix;
  }

  /** Why a pool reader refuses it, in words that end with the fix; null for a pool. */
  public String notAPool() {
    return what == null ? null : what + fix;
  }

  /** Why a command that changes a pool leaves it as it is; null for a pool. */
  String notAPoolToChange() {
    return what == null ? null : what + ": left as it is (kvp changes pool files only)";
  }

  /** Why a host-export reader refuses it; null for a host export (or something unclear). */
  public String notAHostExport() {
    return switch (this) {
      case POOL -> "looks like a binary pool file, not a host-side export: use --file";
      case OTLP_JSON -> "looks like OTLP JSON, not a host-side export";
      case TEXT -> "is text with no Msvm_KvpExchangeDataItem in it: not a host-side export";
      case BINARY -> "is neither a pool nor a host-side export";
      case ARCHIVE -> "looks like a tar or gzip archive, not a host-side export";
      default -> null;
    };
  }

  /** The kind of an input whose first bytes (up to {@link #HEAD_BYTES}) are {@code head}. */
  public static InputKind of(byte[] head, int length) {
    if (length == 0) {
      return EMPTY;
    }
    if (isArchive(head, length)) {
      return ARCHIVE; // a tar header's name field would pass for a record key
    }
    String text = text(head, length);
    if (text != null) {
      String start = text.stripLeading();
      String lower = start.toLowerCase(Locale.ROOT);
      // an export is CIM-XML instances (damaged ones too), or a JSON array or string of them
      boolean instances = lower.contains("<instance") || lower.contains("msvm_kvpexchangedataitem");
      if (instances && (lower.startsWith("<") || lower.startsWith("[") || lower.startsWith("\""))) {
        return HOST_EXPORT;
      }
      if (start.startsWith("{") && text.contains("\"resourceSpans\"")) {
        return OTLP_JSON;
      }
      return TEXT;
    }
    boolean zeroed = true;
    for (int slot = 0; slot < length; slot += RECORD_BYTES) {
      if (hasKey(head, slot, Math.min(length, slot + KEY_BYTES))) {
        return POOL;
      }
      zeroed &= isZero(head, slot, Math.min(length, slot + RECORD_BYTES));
    }
    // Zeroed slots are a pool's (a writer cleared them); doctor says what is wrong with them.
    return zeroed ? POOL : BINARY;
  }

  /** A tar header ({@code ustar} at offset 257), or gzip's magic number. */
  private static boolean isArchive(byte[] head, int length) {
    if (length >= 2 && (head[0] & 0xFF) == 0x1F && (head[1] & 0xFF) == 0x8B) {
      return true;
    }
    byte[] ustar = "ustar".getBytes(StandardCharsets.US_ASCII);
    if (length < 257 + ustar.length) {
      return false;
    }
    for (int i = 0; i < ustar.length; i++) {
      if (head[257 + i] != ustar[i]) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether the key field at {@code from} holds a key as a writer left it: bytes, a NUL, and NUL
   * padding to the end of the field (whatever the bytes); or text, then a NUL and anything (a
   * writer that reuses its buffer leaves stale bytes after the NUL); or text filling the whole
   * field (no NUL: doctor says so). Noise is none of these.
   */
  private static boolean hasKey(byte[] bytes, int from, int to) {
    int nul = -1;
    for (int i = from; i < to; i++) {
      if (bytes[i] == 0) {
        nul = i;
        break;
      }
    }
    if (nul == from) {
      return false;
    }
    if (nul < 0) {
      return to - from == KEY_BYTES && isText(bytes, from, to);
    }
    return isZero(bytes, nul, to) || isText(bytes, from, nul);
  }

  /** UTF-8 without control characters (a tab aside). */
  private static boolean isText(byte[] bytes, int from, int to) {
    String text = decode(bytes, from, to - from);
    return text != null && text.chars().noneMatch(c -> c < 0x20 && c != '\t' || c == 0x7f);
  }

  private static boolean isZero(byte[] bytes, int from, int to) {
    for (int i = from; i < to; i++) {
      if (bytes[i] != 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * The head as text, if it is text: UTF-8 (or UTF-16 after a byte order mark) with no NUL; a
   * character cut at the end of the head does not count against it.
   */
  private static String text(byte[] head, int length) {
    if (length >= 2 && (head[0] & 0xFF) == 0xFF && (head[1] & 0xFF) == 0xFE) {
      return new String(head, 2, (length - 2) & ~1, StandardCharsets.UTF_16LE);
    }
    if (length >= 2 && (head[0] & 0xFF) == 0xFE && (head[1] & 0xFF) == 0xFF) {
      return new String(head, 2, (length - 2) & ~1, StandardCharsets.UTF_16BE);
    }
    for (int i = 0; i < length; i++) {
      if (head[i] == 0) {
        return null;
      }
    }
    int end = length;
    // a multi-byte character cut by the end of the head: leave its bytes out
    for (int back = 0; back < 3 && end > 0 && (head[end - 1] & 0xC0) == 0x80; back++) {
      end--;
    }
    if (end > 0 && (head[end - 1] & 0xC0) == 0xC0) {
      end--;
    }
    return decode(head, 0, end);
  }

  private static String decode(byte[] bytes, int from, int length) {
    try {
      return UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes, from, length))
          .toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  /** An input of the wrong kind: one line, the command exits 3. */
  public static final class WrongInput extends IOException {
    public WrongInput(String message) {
      super(message);
    }
  }
}
