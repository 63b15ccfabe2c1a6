package dev.kvprov.kvp;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits a long value into pieces that each fit a record, cutting only between code points so that
 * every piece is valid UTF-8 on its own and the pieces concatenate back to the original exactly.
 *
 * <p>Cutting inside a character (as some writers do) leaves pieces the host cannot convert, and the
 * host stops showing records from the first such piece on.
 */
public final class ValueChunker {
  private ValueChunker() {}

  /** Splits for the value limit of {@code limits}. */
  public static List<String> split(String value, KvpLimits limits) {
    requireNonNull(limits, "limits");
    return split(value, limits.maxValueBytes());
  }

  /**
   * Splits {@code value} into the fewest pieces of at most {@code maxBytes} UTF-8 bytes each, each
   * as long as it can be. An empty value gives one empty piece.
   *
   * @throws IllegalArgumentException if {@code maxBytes < 4} (a code point may need 4 bytes) or the
   *     value holds an unpaired surrogate
   */
  public static List<String> split(String value, int maxBytes) {
    requireNonNull(value, "value");
    if (maxBytes < 4) {
      throw new IllegalArgumentException("maxBytes is " + maxBytes + "; a piece needs at least 4");
    }
    List<String> pieces = new ArrayList<>();
    int pieceStart = 0;
    int pieceBytes = 0;
    int i = 0;
    while (i < value.length()) {
      char c = value.charAt(i);
      int units = 1;
      int bytes;
      if (c < 0x80) {
        bytes = 1;
      } else if (c < 0x800) {
        bytes = 2;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < value.length()
          && Character.isLowSurrogate(value.charAt(i + 1))) {
        bytes = 4;
        units = 2;
      } else if (Character.isSurrogate(c)) {
        throw new IllegalArgumentException(
            "value contains an unpaired surrogate at index " + i + "; it has no UTF-8 form");
      } else {
        bytes = 3;
      }
      if (pieceBytes + bytes > maxBytes) {
        pieces.add(value.substring(pieceStart, i));
        pieceStart = i;
        pieceBytes = 0;
      }
      pieceBytes += bytes;
      i += units;
    }
    pieces.add(value.substring(pieceStart));
    return List.copyOf(pieces);
  }
}
