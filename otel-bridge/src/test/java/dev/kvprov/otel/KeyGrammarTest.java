package dev.kvprov.otel;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * kvprov's keys and {@code Boot} seconds are read by hand for speed: every reading must be the one
 * the grammar's regular expression (docs/kvp-format.md, kept here as the specification) and {@link
 * BigDecimal} give, on the keys and numbers the agent writes and on their near misses.
 */
class KeyGrammarTest {
  private static final Pattern GRAMMAR =
      Pattern.compile(
          "kvprov-(\\d{1,9})\\|([0-9a-z-]+)\\|(DEBUG|INFO|WARN|ERROR)\\|(start|end|event|log|dropped)"
              + "\\|([^|]*)\\|([0-9a-z.]+)(?:\\|(\\d{1,9})/(\\d{1,9}))?");

  private static final Pattern LATER = Pattern.compile("kvprov-(\\d{1,9})\\|");

  @Test
  void keysReadAsTheGrammarSays() {
    List<String> keys = new ArrayList<>(edgeKeys());
    SplittableRandom random = new SplittableRandom(27);
    for (String key : edgeKeys()) {
      for (int i = 0; i < 200; i++) {
        keys.add(mutate(key, random));
      }
    }
    for (String key : keys) {
      assertThat(KvpRecordFormat.key(key)).as(key).isEqualTo(expectedKey(key));
      assertThat(KvpRecordFormat.decodeJoined(key, "Name: n").map(KvprovRecord::recordId))
          .as(key)
          .isEqualTo(expectedJoined(key));
    }
  }

  @Test
  void bootSecondsReadAsBigDecimalReadsThem() {
    List<String> texts =
        new ArrayList<>(
            List.of(
                "0",
                "12.345",
                "12.",
                ".5",
                "1.123456789",
                "1.1234567891",
                "1.1234567890",
                "999999999.999999999",
                "1000000000",
                "9223372036.854775807",
                "-1",
                "+1",
                "1e3",
                "",
                "1.2.3",
                "١٢",
                "00012.50",
                "3 ",
                "0x1",
                "12-13.5",
                "-5",
                "1e-5",
                "1e-9",
                "1e-10",
                "5e9",
                "5e10",
                "9.223372036854775807e9",
                "9.223372036854775808e9",
                "0e5",
                "0e-5"));
    SplittableRandom random = new SplittableRandom(27);
    for (int i = 0; i < 2000; i++) {
      StringBuilder b = new StringBuilder();
      int length = random.nextInt(1, 22);
      for (int j = 0; j < length; j++) {
        // digits, signs and dots; exponents are the cases above (big ones take BigDecimal ages)
        b.append("0123456789.-+ ".charAt(random.nextInt(random.nextBoolean() ? 10 : 14)));
      }
      texts.add(b.toString());
    }
    for (String text : texts) {
      KvprovRecord r =
          new KvprovRecord(
              KvprovRecord.Kind.END,
              KvprovRecord.Level.INFO,
              "vm",
              "1",
              List.of(new KvprovRecord.Field(KvpRecordFormat.BOOT, text)),
              io.opentelemetry.api.common.Attributes.empty());
      String start = text.indexOf('-') < 0 ? text : text.substring(0, text.indexOf('-'));
      assertThat(r.sinceBoot()).as(text).isEqualTo(reference(start));
      assertThat(r.endSinceBoot())
          .as(text)
          .isEqualTo(
              text.indexOf('-') > 0
                  ? reference(text.substring(text.indexOf('-') + 1))
                  : Optional.empty());
    }
  }

  @Test
  void idsAndLabelsAreCheckedAsBefore() {
    for (String id : List.of("", "a", "a.b", "A", "a-b", "x".repeat(40), "x".repeat(41), "é")) {
      assertThat(builds(id, "vm", "Name")).as(id).isEqualTo(id.matches("[0-9a-z.]{1,40}"));
    }
    for (String vm : List.of("", "a", "a-b", "a.b", "B", "x".repeat(36), "x".repeat(37), "é")) {
      assertThat(builds("1", vm, "Name")).as(vm).isEqualTo(vm.matches("[0-9a-z-]{1,36}"));
    }
    for (String label : List.of("", "Name", "name", "Na me", "N1", "Attr", "É", "ZzAa")) {
      assertThat(builds("1", "vm", label))
          .as(label)
          .isEqualTo(label.matches("[A-Za-z]+") && !label.equals("Attr"));
    }
  }

  private static boolean builds(String recordId, String vmId, String label) {
    try {
      new KvprovRecord(
          KvprovRecord.Kind.LOG,
          KvprovRecord.Level.INFO,
          vmId,
          recordId,
          List.of(new KvprovRecord.Field(label, "t")),
          io.opentelemetry.api.common.Attributes.empty());
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /**
   * A damaged record's huge exponent is read at once, not worked out digit by digit: before, {@code
   * Boot: 1e+9999999} held a {@code kvp list} of its pool for most of a minute.
   */
  @Test
  @org.junit.jupiter.api.Timeout(60)
  void aHugeExponentIsNoTime() {
    for (String text : List.of("1e+9999999", "7E+99999999-1e9999999", "x-5e999999")) {
      KvprovRecord r =
          new KvprovRecord(
              KvprovRecord.Kind.END,
              KvprovRecord.Level.INFO,
              "vm",
              "1",
              List.of(new KvprovRecord.Field(KvpRecordFormat.BOOT, text)),
              io.opentelemetry.api.common.Attributes.empty());
      assertThat(r.sinceBoot()).as(text).isEmpty();
      assertThat(r.endSinceBoot()).as(text).isEmpty();
    }
  }

  /** Seconds as BigDecimal reads them, for the small exponents it works out quickly. */
  private static Optional<Duration> reference(String text) {
    try {
      return Optional.of(Duration.ofNanos(new BigDecimal(text).movePointRight(9).longValueExact()));
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  private static List<String> edgeKeys() {
    return List.of(
        "kvprov-1|0a1b-c2|INFO|start|imds.fetch|1a2b.3",
        "kvprov-1|vm|ERROR|end|step-6|ff.1|0/2",
        "kvprov-1|vm|DEBUG|log||x|1/2",
        "kvprov-1|vm|WARN|dropped|budget|9|123456789/987654321",
        "kvprov-1|vm|WARN|event|a b~c:d|9|1234567890/1",
        "kvprov-01|vm|INFO|event|n|1",
        "kvprov-2|vm|INFO|event|n|1",
        "kvprov-1234567890|vm|INFO|event|n|1",
        "kvprov-1|vm|INFO|event|n|1|",
        "kvprov-1|vm|INFO|event|n|1|2",
        "kvprov-1|vm|INFO|event|n|1|2/",
        "kvprov-1|vm|INFO|event|n|1|/2",
        "kvprov-1|vm|INFO|event|n|",
        "kvprov-1|vm|INFO|event|n",
        "kvprov-1|VM|INFO|event|n|1",
        "kvprov-1||INFO|event|n|1",
        "kvprov-1|vm|INFOX|event|n|1",
        "kvprov-1|vm|INFO|events|n|1",
        "kvprov-1|vm|info|event|n|1",
        "kvprov-|vm|INFO|event|n|1",
        "kvprov-x|",
        "kvprov-",
        "kvprov-1|vm|INFO|event|n|1|1/2|3",
        "kvprov-1|vm|INFO|event|n|1\n|1/2",
        "kvprov-1|vm|INFO|event|ü\uD83D\uDE00|1.2.",
        "azure-init|x");
  }

  /** The key with one char replaced, removed, doubled, or a grammar char put in. */
  private static String mutate(String key, SplittableRandom random) {
    if (key.isEmpty()) {
      return key;
    }
    int at = random.nextInt(key.length());
    String pick = "|/-.0123456789aZ \u00e9:";
    char c = pick.charAt(random.nextInt(pick.length()));
    return switch (random.nextInt(4)) {
      case 0 -> key.substring(0, at) + c + key.substring(at + 1);
      case 1 -> key.substring(0, at) + key.substring(at + 1);
      case 2 -> key.substring(0, at) + key.charAt(at) + key.substring(at);
      default -> key.substring(0, at) + c + key.substring(at);
    };
  }

  /** {@link KvpRecordFormat#key} as it read keys through the regular expression. */
  private static Optional<KvpRecordFormat.Key> expectedKey(String key) {
    if (!key.startsWith("kvprov-")) {
      return Optional.empty();
    }
    Matcher m = GRAMMAR.matcher(key);
    if (!m.matches()) {
      if (key.startsWith("kvprov-1|")) {
        return Optional.empty();
      }
      Matcher version = LATER.matcher(key);
      return Optional.of(
          new KvpRecordFormat.Key(
              version.lookingAt() ? Integer.parseInt(version.group(1)) : -1, "", key, 0, 1));
    }
    int version = Integer.parseInt(m.group(1));
    return m.group(7) == null
        ? Optional.of(new KvpRecordFormat.Key(version, m.group(2), key, 0, 1))
        : Optional.of(
            new KvpRecordFormat.Key(
                version,
                m.group(2),
                key.substring(0, m.start(7) - 1),
                Integer.parseInt(m.group(7)),
                Integer.parseInt(m.group(8))));
  }

  /** The record id {@link KvpRecordFormat#decodeJoined} read, as the expression and checks did. */
  private static Optional<String> expectedJoined(String key) {
    Matcher m = GRAMMAR.matcher(key);
    if (!m.matches()
        || !m.group(1).equals("1")
        || !m.group(6).matches("[0-9a-z.]{1,40}")
        || !m.group(2).matches("[0-9a-z-]{1,36}")) {
      return Optional.empty();
    }
    return Optional.of(m.group(6));
  }
}
