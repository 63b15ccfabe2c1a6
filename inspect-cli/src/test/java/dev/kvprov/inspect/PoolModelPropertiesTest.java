package dev.kvprov.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.fixtures.Trials;
import dev.kvprov.inspect.pool.HostExport;
import dev.kvprov.inspect.pool.Items;
import dev.kvprov.inspect.spans.Timeline;
import dev.kvprov.inspect.writers.Events;
import dev.kvprov.inspect.writers.Item;
import dev.kvprov.inspect.writers.PointEvents;
import dev.kvprov.inspect.writers.SpanForest;
import dev.kvprov.inspect.writers.SpanNode;
import dev.kvprov.kvp.PoolEntry;
import dev.kvprov.kvp.PoolVisitor;
import dev.kvprov.kvp.RecordCodec;
import java.io.ByteArrayInputStream;
import java.io.StringReader;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The models every read command shares, fed the same hostile pools and exports as the commands but
 * many more of them (no command line to build, nothing to render): no record is hidden or counted
 * twice, items come in pool order, and spans, point events and timelines are built from anything
 * without an exception.
 */
class PoolModelPropertiesTest {

  @Test
  void poolRecords_eachLandInExactlyOneItem_inPoolOrder_andEveryModelIsBuilt() {
    Trials.run(1500, r -> poolRecordsEachLandInExactlyOneItem(HostilePools.pool(r)));
  }

  /** Also the check of {@link PoolModelFuzzTest}, on the fuzzer's bytes. */
  static void poolRecordsEachLandInExactlyOneItem(byte[] pool) throws Exception {
    List<Integer> entries = new ArrayList<>();
    List<Item> items =
        items(
            visitor ->
                RecordCodec.scan(new ByteArrayInputStream(pool), counting(visitor, entries)));

    assertEveryRecordOnce(items, entries);
    buildEveryModel(items);
  }

  @Test
  void exportItems_eachLandInExactlyOneItem_inExportOrder_andEveryModelIsBuilt() {
    Trials.run(600, r -> exportItemsEachLandInExactlyOneItem(HostilePools.export(r)));
  }

  /** Also the check of {@link PoolModelFuzzTest}, on the fuzzer's text. */
  static void exportItemsEachLandInExactlyOneItem(String export) throws Exception {
    List<Integer> entries = new ArrayList<>();
    List<Item> items =
        items(visitor -> HostExport.scan(new StringReader(export), counting(visitor, entries)));

    assertEveryRecordOnce(items, entries);
    buildEveryModel(items);
  }

  private interface Scan {
    void into(Items visitor) throws Exception;
  }

  private static List<Item> items(Scan scan) throws Exception {
    List<Item> items = new ArrayList<>();
    Items model = new Items(items::add);
    scan.into(model);
    model.finish();
    return items;
  }

  /** Passes everything on to {@code items}, noting the index of every record the reader found. */
  private static PoolVisitor counting(Items items, List<Integer> entries) {
    return new PoolVisitor() {
      @Override
      public void entry(PoolEntry entry) {
        entries.add(entry.index());
        items.entry(entry);
      }

      @Override
      public void entry(PoolEntry entry, java.nio.ByteBuffer valueBytes) {
        entries.add(entry.index());
        items.entry(entry, valueBytes);
      }

      @Override
      public void problem(dev.kvprov.kvp.KvpProblem problem) {
        items.problem(problem);
      }
    };
  }

  private static void assertEveryRecordOnce(List<Item> items, List<Integer> entries) {
    List<Integer> placed = new ArrayList<>();
    int previous = -1;
    for (Item item : items) {
      if (item.records().isEmpty()) {
        assertThat(item.problems()).as("an item of no record carries problems").isNotEmpty();
        continue;
      }
      assertThat(item.index()).isEqualTo(item.records().get(0));
      assertThat(item.records()).isSorted();
      assertThat(item.index()).as("items in pool order").isGreaterThan(previous);
      previous = item.index();
      placed.addAll(item.records());
    }
    assertThat(placed)
        .as("every record in exactly one item")
        .containsExactlyInAnyOrderElementsOf(entries);
  }

  private static void buildEveryModel(List<Item> items) {
    SpanForest forest = new SpanForest();
    PointEvents events = new PointEvents();
    for (Item item : items) {
      forest.add(item);
      events.add(item);
      Events.of(item);
    }
    List<SpanNode> roots = forest.finish();
    Timeline.of(roots, events, null);
    Timeline.of(roots, events, Instant.EPOCH);
  }
}
