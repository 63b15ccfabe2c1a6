package dev.kvprov.inspect.writers;

import java.util.List;
import java.util.SortedMap;

/**
 * How one writer's records join into items, while {@code Items} puts a pool together: which keys
 * are its own, which records are pieces of one value and how the pieces join. What the items mean
 * is its {@link ItemReader}'s business.
 */
public abstract class RecordRule {
  /** Whether a record with this key is one of its own. */
  abstract boolean owns(String key);

  /**
   * One record's place in a value its writer split over several records.
   *
   * @param base the key the pieces have in common: the item's key
   * @param index this piece's number, from 0
   * @param count how many pieces the writer says there are; -1 when it does not say (then all but
   *     the last are as long as each other, and another of its values ends the group)
   */
  public record Piece(String base, int index, int count) {}

  /**
   * The record as a piece of a split value, or null when it stands alone. Pieces with numbers in
   * their keys; see {@link #piecesShareKey} for the other way.
   *
   * @param problems where to say what is wrong with the record, as read by this writer
   */
  public Piece piece(String key, String value, List<String> problems) {
    return null;
  }

  /**
   * Whether a problem it said of an item is damage ({@code doctor} reports it), or only that this
   * kvp cannot read what a newer writer wrote.
   */
  public boolean isDamage(String problem) {
    return true;
  }

  /**
   * Whether the writer cuts long values into full-length pieces that repeat one key, one after
   * another, between the bytes of a character if that is where the cut falls (azure-init).
   */
  public boolean piecesShareKey() {
    return false;
  }

  /**
   * Whether a piece of a value whose piece count the writer does not say is its last: by default,
   * when it is shorter than the longest before it (all but the last are as long as each other).
   */
  public boolean lastOfUntold(String piece, int longestSoFar) {
    return piece.length() < longestSoFar;
  }

  /**
   * The value the pieces under {@code base} make, in order of their numbers: joined as they are,
   * unless the writer says otherwise; what is missing is said in {@code problems}.
   */
  public String join(
      String base, SortedMap<Integer, String> pieces, int count, List<String> problems) {
    if (count > 0 && pieces.size() != count) {
      problems.add((count - pieces.size()) + " of " + count + " pieces missing");
    }
    return String.join("", pieces.values());
  }
}
