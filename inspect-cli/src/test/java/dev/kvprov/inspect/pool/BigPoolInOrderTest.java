package dev.kvprov.inspect.pool;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvprov.inspect.CliRun;
import dev.kvprov.inspect.KvprovSpanRecords;
import dev.kvprov.inspect.RawPool;
import dev.kvprov.inspect.RescuedDisk;
import dev.kvprov.inspect.writers.Item;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.RecordCodec;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pool of many batches, read on every core: {@code list} gives what a plain reading in pool order
 * gives, item for item, values split into pieces put back together; {@code tree} has every span
 * once, in order; with {@code --root}, each boot's items stay in their own section.
 */
class BigPoolInOrderTest {
  private static final int SPANS = 2_000;

  @TempDir Path dir;
  private Path pool;

  private String workers;

  /** Workers whatever the machine: a one-core runner would otherwise test one thread only. */
  @BeforeEach
  void fourWorkers() {
    workers = System.setProperty("kvp.workers", "4");
  }

  @AfterEach
  void workersAsBefore() {
    if (workers == null) {
      System.clearProperty("kvp.workers");
    } else {
      System.setProperty("kvp.workers", workers);
    }
  }

  @BeforeEach
  void aPoolOfManyBatches() throws Exception {
    RawPool raw = new RawPool();
    Instant t0 = Instant.parse("2026-11-22T04:47:40Z");
    for (int i = 0; i < SPANS; i++) {
      String id = KvprovSpanRecords.spanId(i);
      // every seventh name is long enough to be split into pieces
      String name = "span-" + i + (i % 7 == 0 ? "-" + "x".repeat(1500) : "");
      String start = t0.plusMillis(i).toString();
      List<KvpRecord> records = new ArrayList<>(KvprovSpanRecords.start(id, null, name, start));
      records.addAll(
          KvprovSpanRecords.end(id, null, name, start, t0.plusMillis(i).plusNanos(500).toString()));
      records.forEach(r -> raw.add(r.key(), r.value()));
      if (i % 50 == 0) {
        raw.add("Support-Note-" + i, "a record of no writer's");
      }
    }
    pool = dir.resolve("pool.kvp");
    Files.write(pool, raw.bytes());
  }

  @Test
  void list_givesWhatAPlainReadingInPoolOrderGives() throws Exception {
    List<Item> expected = new ArrayList<>();
    Items items = new Items(expected::add);
    try (FileChannel file = FileChannel.open(pool)) {
      RecordCodec.scan(file, items);
    }
    items.finish();

    CliRun run = CliRun.of("list", "--json", "--file", pool.toString());

    assertThat(run.exit()).as(run.err()).isZero();
    List<JsonNode> lines = run.jsonLines();
    assertThat(expected).hasSizeGreaterThan(10 * InPoolOrder.BATCH);
    assertThat(lines).hasSameSizeAs(expected);
    for (int i = 0; i < expected.size(); i++) {
      assertThat(lines.get(i).path("index").asInt()).isEqualTo(expected.get(i).index());
      assertThat(lines.get(i).path("key").asText()).isEqualTo(expected.get(i).key());
      assertThat(lines.get(i).path("value").asText()).isEqualTo(expected.get(i).value());
    }
  }

  @Test
  void tree_hasEverySpanOnce_inOrder() {
    CliRun run = CliRun.of("tree", "--file", pool.toString());

    assertThat(run.exit()).as(run.err()).isZero();
    List<String> spans =
        run.out()
            .lines()
            .map(l -> l.replaceAll(".*?(span-\\d+).*", "$1"))
            .filter(l -> l.startsWith("span-"))
            .toList();
    assertThat(spans)
        .containsExactlyElementsOf(IntStream.range(0, SPANS).mapToObj(i -> "span-" + i).toList());
  }

  @Test
  void withRoot_eachBootsItemsStayInItsOwnSection() throws Exception {
    byte[] bytes = Files.readAllBytes(pool);
    Path root = RescuedDisk.of(dir.resolve("disk"), bytes, bytes);

    CliRun run = CliRun.of("list", "--json", "--root", root.toString());

    assertThat(run.exit()).as(run.err()).isZero();
    List<String> sources = run.jsonLines().stream().map(l -> l.path("source").asText()).toList();
    int half = sources.size() / 2;
    assertThat(sources.subList(0, half)).allMatch(s -> s.endsWith(RescuedDisk.ARCHIVED));
    assertThat(sources.subList(half, sources.size())).allMatch(s -> s.endsWith(".kvp_pool_1"));
  }
}
