package dev.kvprov.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.kvp.PoolEntry;
import dev.kvprov.kvp.PoolVisitor;
import dev.kvprov.kvp.RecordCodec;
import java.io.ByteArrayInputStream;
import java.io.StringReader;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * The models every read command shares, fed the same hostile pools and exports as the commands but
 * many more of them (no command line to build, nothing to render): no record is hidden or counted
 * twice, items come in pool order, and spans, point events and timelines are built from anything
 * without an exception.
 */
class PoolModelPropertiesTest {

  @Property(tries = 1500)
  void poolRecords_eachLandInExactlyOneItem_inPoolOrder_andEveryModelIsBuilt(
      @ForAll(supplier = HostilePools.Pools.class) byte[] pool) throws Exception {
    List<Integer> entries = new ArrayList<>();
    List<Item> items =
        items(
            visitor ->
                RecordCodec.scan(new ByteArrayInputStream(pool), counting(visitor, entries)));

    assertEveryRecordOnce(items, entries);
    buildEveryModel(items);
  }

  @Property(tries = 600)
  void exportItems_eachLandInExactlyOneItem_inExportOrder_andEveryModelIsBuilt(
      @ForAll(supplier = HostilePools.Exports.class) String export) throws Exception {
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
