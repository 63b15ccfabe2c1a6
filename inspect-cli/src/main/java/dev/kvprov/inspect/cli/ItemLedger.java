package dev.kvprov.inspect.cli;

import dev.kvprov.inspect.writers.Item;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which of a live pool's items have been shown, so that {@code kvp watch} shows each once, from one
 * scan of the pool to the next, whatever the writers did in between.
 *
 * <p>Items are told apart by content (key and value), not by position: {@code hv_kvp_daemon}
 * rewrites the whole file on a host SET or DELETE, shifting records up, so an index says nothing
 * about identity. Identical items are counted, so a pool holding the same item twice shows it
 * twice. The count of shown items follows what is still in the pool: an item that leaves (deleted,
 * or the pool cleared) and comes back later is shown again, because it was written again.
 */
final class ItemLedger {
  /** How far an item of one scan is from being showable. */
  enum State {
    /** A record, or a group whose pieces are all there. */
    WHOLE,
    /**
     * A group whose writer does not record how many pieces it has (cloud-init's {@code msg_i}
     * chunks): it may still be growing, so it is shown once two scans in a row find it the same.
     */
    OPEN,
    /** A group with pieces missing that its writer has counted (kvprov's {@code |i/n}). */
    INCOMPLETE
  }

  /** One item of a scan, in the order the scan found it. */
  record Sighting(Item item, State state) {}

  /**
   * What a scan brought.
   *
   * @param cleared no key shown before is left: the pool was emptied (the boot-time clear), or
   *     emptied and filled again (a new boot's keys differ: they hold its time, span ids, uuids). A
   *     value replaced in place keeps its key, so it is not a clear.
   * @param appeared the items to show now, in scan order
   */
  record Batch(boolean cleared, List<Item> appeared) {
    Batch {
      appeared = List.copyOf(appeared);
    }
  }

  private record Content(String key, String value) {
    static Content of(Item item) {
      return new Content(item.key(), item.value());
    }
  }

  /** Shown and still in the pool, by content. */
  private Map<Content, Integer> shown = new HashMap<>();

  /** The open groups of the previous scan. */
  private Map<Content, Integer> open = new HashMap<>();

  /** Whether an open group of the last scan is waiting for the next scan to confirm it. */
  boolean waiting() {
    return open.entrySet().stream().anyMatch(e -> shown.getOrDefault(e.getKey(), 0) < e.getValue());
  }

  /**
   * Takes what is in the pool now as already shown (for {@code --new-only}), open groups included:
   * they were there before the watch began.
   */
  void baseline(List<Sighting> scan) {
    shown = new HashMap<>();
    open = new HashMap<>();
    for (Sighting s : scan) {
      if (s.state() != State.INCOMPLETE) {
        shown.merge(Content.of(s.item()), 1, Integer::sum);
      }
      if (s.state() == State.OPEN) {
        open.merge(Content.of(s.item()), 1, Integer::sum);
      }
    }
  }

  /** Compares a new scan of the pool with what has been shown; an empty scan is an empty pool. */
  Batch next(List<Sighting> scan) {
    Map<Content, Integer> present = new HashMap<>();
    Map<Content, Integer> openNow = new HashMap<>();
    Map<Content, Integer> showable = new HashMap<>();
    Set<String> keys = new HashSet<>();
    List<Item> appeared = new ArrayList<>();
    for (Sighting s : scan) {
      keys.add(s.item().key());
      if (s.state() == State.INCOMPLETE) {
        continue; // not an item yet: its writer will add the missing pieces
      }
      Content content = Content.of(s.item());
      present.merge(content, 1, Integer::sum);
      if (s.state() == State.OPEN
          && openNow.merge(content, 1, Integer::sum) > open.getOrDefault(content, 0)) {
        continue; // first seen now: it may still grow; the next scan decides
      }
      // The n-th copy of an item is new if fewer than n copies have been shown.
      if (showable.merge(content, 1, Integer::sum) > shown.getOrDefault(content, 0)) {
        appeared.add(s.item());
      }
    }
    boolean cleared =
        !shown.isEmpty() && shown.keySet().stream().map(Content::key).noneMatch(keys::contains);
    Map<Content, Integer> shownNow = new HashMap<>(showable);
    shown.forEach(
        (content, count) ->
            shownNow.merge(content, Math.min(count, present.getOrDefault(content, 0)), Math::max));
    shownNow.values().removeIf(count -> count == 0);
    shown = shownNow;
    open = openNow;
    return new Batch(cleared, appeared);
  }
}
