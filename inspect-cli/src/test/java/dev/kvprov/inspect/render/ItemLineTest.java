package dev.kvprov.inspect.render;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.fixtures.Trials;
import dev.kvprov.inspect.KvprovSpanRecords;
import dev.kvprov.inspect.pool.Items;
import dev.kvprov.inspect.text.Text;
import dev.kvprov.inspect.writers.Events;
import dev.kvprov.inspect.writers.Item;
import dev.kvprov.kvp.KvpRecord;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The decoded line of an item: fitted to a terminal by wrapping at words, whole otherwise. */
class ItemLineTest {
  private static final String ERROR =
      "no usable answer from IMDS after 8 attempt(s) in 8.0 s (budget 8 s); last: IMDS answered"
          + " HTTP 503";

  /** The end of a failed span, as kvprov writes it. */
  private static Item failedSpan() {
    List<KvpRecord> records =
        dev.kvprov.otel.KvpRecordFormat.encode(
            new dev.kvprov.otel.KvprovRecord(
                dev.kvprov.otel.KvprovRecord.Kind.END,
                dev.kvprov.otel.KvprovRecord.Level.ERROR,
                "vm",
                KvprovSpanRecords.spanId(0),
                List.of(
                    new dev.kvprov.otel.KvprovRecord.Field(
                        dev.kvprov.otel.KvpRecordFormat.START, "2026-11-22T04:47:46.000Z"),
                    new dev.kvprov.otel.KvprovRecord.Field(
                        dev.kvprov.otel.KvpRecordFormat.END, "2026-11-22T04:47:54.000Z"),
                    new dev.kvprov.otel.KvprovRecord.Field(
                        dev.kvprov.otel.KvpRecordFormat.STATUS, "error"),
                    new dev.kvprov.otel.KvprovRecord.Field(
                        dev.kvprov.otel.KvpRecordFormat.SPAN, KvprovSpanRecords.spanId(0)),
                    new dev.kvprov.otel.KvprovRecord.Field(
                        dev.kvprov.otel.KvpRecordFormat.NAME, "imds.fetch"),
                    new dev.kvprov.otel.KvprovRecord.Field(
                        dev.kvprov.otel.KvpRecordFormat.ERROR, ERROR)),
                io.opentelemetry.api.common.Attributes.empty()));
    List<Item> items = new java.util.ArrayList<>();
    Items reader = new Items(items::add);
    for (int i = 0; i < records.size(); i++) {
      reader.entry(new dev.kvprov.kvp.PoolEntry(i, i * 2560L, records.get(i), true));
    }
    reader.finish();
    return items.get(0);
  }

  @Test
  void onAnEightyColumnTerminal_theErrorTextWrapsAtWordsUnderTheName() {
    Item item = failedSpan();

    List<String> lines = ItemLine.lines(item, Events.of(item), 80, Style.PLAIN);

    assertThat(lines).hasSizeGreaterThan(1);
    assertThat(lines).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(80));
    assertThat(lines.get(0)).contains("ERROR  kvprov      imds.fetch FAILED:");
    assertThat(lines.subList(1, lines.size()))
        .allSatisfy(l -> assertThat(l).startsWith(" ".repeat(ItemLine.INDENT)).doesNotEndWith(" "));
    String text =
        String.join(" ", lines.stream().map(String::strip).toList()).replaceAll(" +", " ");
    assertThat(text).contains("imds.fetch FAILED: " + ERROR);
  }

  @Test
  void withoutAWidth_anItemIsOneWholeLine() {
    Item item = failedSpan();

    List<String> lines = ItemLine.lines(item, Events.of(item), Integer.MAX_VALUE, Style.PLAIN);

    assertThat(lines).hasSize(1);
    assertThat(lines.get(0)).endsWith("imds.fetch FAILED: " + ERROR);
  }

  @Test
  void wrap_fitsEveryLine_andLosesNoWord() {
    Trials.run(
        300,
        r ->
            wrapFitsEveryLineAndLosesNoWord(
                Trials.anyString(r, 400), Trials.between(r, 1, 90), Trials.between(r, 1, 90)));
  }

  private static void wrapFitsEveryLineAndLosesNoWord(String raw, int first, int rest) {
    String text = raw.replaceAll("[\\s]", " ");

    List<String> lines = Text.wrap(text, first, rest);

    assertThat(lines).isNotEmpty();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      assertThat(line.codePointCount(0, line.length())).isLessThanOrEqualTo(i == 0 ? first : rest);
    }
    assertThat(String.join("", lines).replace(" ", "")).isEqualTo(text.replace(" ", ""));
  }

  @Test
  void onATerminalTooNarrowForTheColumns_theTextGoesUnderThem_wholeWords() {
    Item item = failedSpan();

    List<String> lines = ItemLine.lines(item, Events.of(item), 40, Style.PLAIN);

    assertThat(lines.get(0)).endsWith("kvprov").doesNotContain("imds");
    assertThat(lines.subList(1, lines.size()))
        .allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(40));
    assertThat(
            String.join(" ", lines.subList(1, lines.size()).stream().map(String::strip).toList()))
        .isEqualTo("imds.fetch FAILED: " + ERROR);
  }
}
