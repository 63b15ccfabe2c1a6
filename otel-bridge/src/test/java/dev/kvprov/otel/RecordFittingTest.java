package dev.kvprov.otel;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.AttributeType;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Fitting an oversize record ({@link KvpRecordFormat#fitted}) in one pass gives the very records
 * the sink's encode-measure-cut loop gave (kept below, frozen, as the reference), on random records
 * of every shape.
 */
class RecordFittingTest {
  private static final long SEED = 0x6b7670726f76L;
  // 20,000 cases passed when the loop moved out of KvpSink; fewer keep each build quick
  private static final int CASES = 1_000;

  private static final String[] LABELS = {
    KvpRecordFormat.START,
    KvpRecordFormat.END,
    KvpRecordFormat.BOOT,
    KvpRecordFormat.STATUS,
    KvpRecordFormat.ERROR,
    KvpRecordFormat.TRACE,
    KvpRecordFormat.SPAN,
    KvpRecordFormat.NAME,
    KvpRecordFormat.EVENT,
    KvpRecordFormat.BODY,
  };

  @Test
  void onePass_writesTheSameRecords_asEncodeMeasureCut() {
    Random random = new Random(SEED);
    int cut = 0;
    for (int n = 0; n < CASES; n++) {
      KvprovRecord record = record(random);
      KvprovRecord old = EncodeMeasureCut.fitted(record);
      KvprovRecord fitted = KvpRecordFormat.fitted(record);

      String why = "case " + n + " of seed " + SEED;
      assertThat(KvpRecordFormat.encode(fitted)).as(why).isEqualTo(KvpRecordFormat.encode(old));
      assertThat(fitted).as(why).isEqualTo(old);
      if (old != record) {
        cut++;
      }
    }
    // the inputs must exercise the cutting, not only records that fit
    assertThat(cut).isGreaterThan(CASES / 3);
  }

  @Test
  void aRecordThatFits_isLeftAsItIs() {
    KvprovRecord record =
        new KvprovRecord(
            KvprovRecord.Kind.LOG,
            KvprovRecord.Level.INFO,
            "unknown",
            "1",
            List.of(new KvprovRecord.Field(KvpRecordFormat.BODY, "x".repeat(3000))),
            Attributes.empty());

    assertThat(KvpRecordFormat.fitted(record)).isSameAs(record);
  }

  @Test
  void anOversizeRecord_fitsInFourPieces_saysWhatWasCut() {
    KvprovRecord record =
        new KvprovRecord(
            KvprovRecord.Kind.END,
            KvprovRecord.Level.ERROR,
            "unknown",
            "2",
            List.of(
                new KvprovRecord.Field(KvpRecordFormat.NAME, "user"),
                new KvprovRecord.Field(KvpRecordFormat.ERROR, "é".repeat(200_000))),
            Attributes.of(AttributeKey.stringKey("stderr"), "|".repeat(9_000)));

    KvprovRecord fitted = KvpRecordFormat.fitted(record);

    assertThat(KvpRecordFormat.value(fitted).getBytes(UTF_8).length)
        .isLessThanOrEqualTo(KvpRecordFormat.MAX_VALUE_BYTES);
    assertThat(KvpRecordFormat.encode(fitted)).hasSizeLessThanOrEqualTo(4);
    assertThat(fitted.field(KvpRecordFormat.ERROR).orElseThrow()).endsWith(" chars cut]");
    assertThat(fitted.attributes().get(AttributeKey.stringKey("stderr"))).endsWith(" chars cut]");
    assertThat(fitted.name()).contains("user");
  }

  private static KvprovRecord record(Random random) {
    List<KvprovRecord.Field> fields = new ArrayList<>();
    int fieldCount = random.nextInt(7);
    for (int i = 0; i < fieldCount; i++) {
      fields.add(new KvprovRecord.Field(LABELS[random.nextInt(LABELS.length)], text(random)));
    }
    AttributesBuilder attributes = Attributes.builder();
    int attributeCount = random.nextInt(6);
    for (int i = 0; i < attributeCount; i++) {
      String key = "k" + random.nextInt(8) + (random.nextInt(4) == 0 ? "|=\\" : "");
      switch (random.nextInt(5)) {
        case 0 -> attributes.put(AttributeKey.longKey(key), random.nextLong());
        case 1 -> attributes.put(AttributeKey.booleanKey(key), random.nextBoolean());
        case 2 -> attributes.put(AttributeKey.stringArrayKey(key), List.of(text(random), "a,b"));
        default -> attributes.put(AttributeKey.stringKey(key), text(random));
      }
    }
    return new KvprovRecord(
        KvprovRecord.Kind.values()[random.nextInt(KvprovRecord.Kind.values().length)],
        KvprovRecord.Level.values()[random.nextInt(KvprovRecord.Level.values().length)],
        "unknown",
        Long.toHexString(random.nextLong() & Long.MAX_VALUE),
        fields,
        attributes.build());
  }

  /** Mostly short, sometimes far over the budget; escapes, 2-, 3- and 4-byte characters. */
  private static String text(Random random) {
    int length =
        switch (random.nextInt(4)) {
          case 0 -> random.nextInt(70);
          case 1 -> random.nextInt(1500);
          case 2 -> random.nextInt(5000);
          default -> random.nextInt(20_000);
        };
    StringBuilder text = new StringBuilder(length);
    int alphabet = random.nextInt(4);
    while (text.length() < length) {
      switch (alphabet == 0 ? 0 : random.nextInt(8)) {
        case 0, 1, 2 -> text.append((char) ('a' + random.nextInt(26)));
        case 3 -> text.append("|\\\n\t\0\u007f".charAt(random.nextInt(6)));
        case 4 -> text.append((char) (0xa0 + random.nextInt(0x700)));
        case 5 -> text.append((char) (0x3000 + random.nextInt(0x5000)));
        case 6 -> text.appendCodePoint(0x1f300 + random.nextInt(0x300));
        default -> text.append((char) (0xd800 + random.nextInt(0x800))); // a lone surrogate
      }
    }
    return text.toString();
  }

  /** The sink's fitting as it was until it moved into KvpRecordFormat: encode, measure, cut. */
  private static final class EncodeMeasureCut {
    /**
     * The record cut to at most {@link KvpRecordFormat#MAX_VALUE_BYTES}: the longest texts (fields
     * and string attributes) are shortened first, each marked with how much was cut. Nothing is
     * exempt, not even errors: a 200 KB stack trace must not fill the pool.
     */
    static KvprovRecord fitted(KvprovRecord record) {
      KvprovRecord current = record;
      for (int round = 0; round < 64; round++) {
        int excess =
            KvpRecordFormat.value(current).getBytes(StandardCharsets.UTF_8).length
                - KvpRecordFormat.MAX_VALUE_BYTES;
        if (excess <= 0) {
          return current;
        }
        KvprovRecord shorter = cutLongestText(current, excess);
        if (shorter == null) {
          return current;
        }
        current = shorter;
      }
      return current;
    }

    private static KvprovRecord cutLongestText(KvprovRecord record, int excess) {
      int longestField = -1;
      int longest = 0;
      for (int i = 0; i < record.fields().size(); i++) {
        int length = record.fields().get(i).text().length();
        if (length > longest) {
          longest = length;
          longestField = i;
        }
      }
      AttributeKey<?> longestAttribute = null;
      for (var entry : record.attributes().asMap().entrySet()) {
        if (entry.getKey().getType() == AttributeType.STRING
            && ((String) entry.getValue()).length() > longest) {
          longest = ((String) entry.getValue()).length();
          longestAttribute = entry.getKey();
        }
      }
      if (longest <= 64) {
        return null;
      }
      if (longestAttribute != null) {
        AttributesBuilder attributes = Attributes.builder();
        AttributeKey<?> cut = longestAttribute;
        record
            .attributes()
            .forEach(
                (key, value) -> {
                  if (key.equals(cut)) {
                    attributes.put(
                        AttributeKey.stringKey(key.getKey()), cut((String) value, excess));
                  } else {
                    putUnchecked(attributes, key, value);
                  }
                });
        return new KvprovRecord(
            record.kind(),
            record.level(),
            record.vmId(),
            record.recordId(),
            record.fields(),
            attributes.build());
      }
      List<KvprovRecord.Field> fields = new ArrayList<>(record.fields());
      KvprovRecord.Field field = fields.get(longestField);
      fields.set(longestField, new KvprovRecord.Field(field.label(), cut(field.text(), excess)));
      return new KvprovRecord(
          record.kind(),
          record.level(),
          record.vmId(),
          record.recordId(),
          fields,
          record.attributes());
    }

    /** {@code text} less at least {@code excess} bytes' worth, ending in a note of what was cut. */
    private static String cut(String text, int excess) {
      int keep = Math.max(32, text.length() - excess - 32);
      if (Character.isLowSurrogate(text.charAt(keep))) {
        keep--;
      }
      return text.substring(0, keep) + "…[" + (text.length() - keep) + " chars cut]";
    }

    @SuppressWarnings("unchecked")
    private static void putUnchecked(AttributesBuilder builder, AttributeKey<?> key, Object value) {
      builder.put((AttributeKey<Object>) key, value);
    }
  }
}
