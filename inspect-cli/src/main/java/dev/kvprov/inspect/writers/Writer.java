package dev.kvprov.inspect.writers;

import java.util.List;
import java.util.Optional;

/**
 * A program whose records kvp reads: which keys are its own, and what its items mean. Each writer
 * is one class; {@link Writers} lists them. What a command shows of a writer's records, it asks the
 * writer.
 */
public abstract class Writer {
  private final String name;
  private final String colour;

  /**
   * @param name how output names it ({@code list}'s {@code writer}, {@code --writer})
   * @param colour its colour on the timeline page
   */
  Writer(String name, String colour) {
    this.name = name;
    this.colour = colour;
  }

  public final String name() {
    return name;
  }

  /** How human output names it, in a column of ten: its name unless that is longer. */
  public String label() {
    return name;
  }

  public final String colour() {
    return colour;
  }

  /** Whether a record with this key is one of its own. */
  abstract boolean owns(String key);

  /** What the item says happened; empty if it says nothing kvp reads or cannot be read. */
  Optional<Event> event(Item item) {
    return Optional.empty();
  }

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
      String base, java.util.SortedMap<Integer, String> pieces, int count, List<String> problems) {
    if (count > 0 && pieces.size() != count) {
      problems.add((count - pieces.size()) + " of " + count + " pieces missing");
    }
    return String.join("", pieces.values());
  }

  /**
   * An encoded payload an item carries, expanded to text ({@code kvp decode}).
   *
   * @param encoding as the writer names it
   * @param text the text it holds, or null when it does not decode
   * @param error why it does not decode, or null
   */
  public record Payload(String encoding, String text, String error) {}

  /** The item's encoded payload, expanded; null if it carries none. */
  public Payload payload(Item item) {
    return null;
  }

  /**
   * What this writer's span and point readers need of an item, worked out once an item and on any
   * thread: a big pool's items are read on every core ({@code InPoolOrder}), then handed to the
   * readers in pool order. Null when the readers need nothing beyond the item.
   */
  public Object reading(Item item) {
    return null;
  }

  /** A fresh reader of its items into spans, for one read of a pool. */
  SpanReader spans() {
    return SpanReader.NONE;
  }

  /** A fresh reader of its items into point events and a clue to the boot time. */
  PointReader points() {
    return PointReader.NONE;
  }

  /**
   * What an item says of where it was written, for {@code export}'s resources and trace ids.
   *
   * @param vmId the VM id it names, or null
   * @param vmIdOfPool whether that id tells only the pool's VM (a report), not the writer's own
   * @param bootEpoch the boot (seconds since the epoch) its key names, or null
   */
  public record Origin(String vmId, boolean vmIdOfPool, Long bootEpoch) {
    static final Origin NONE = new Origin(null, false, null);
  }

  public Origin origin(Item item) {
    return Origin.NONE;
  }
}
