package dev.kvprov.otel;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import dev.kvprov.kvp.KvpLimits;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;
import org.apache.commons.csv.QuoteMode;

/**
 * The {@code PROVISIONING_REPORT} item the Azure platform reads from KVP: one CSV row with {@code
 * |} as delimiter, each field {@code key=value}, quoted when it holds {@code |}, a quote or a line
 * break.
 *
 * <p>Success: {@code result=success|agent=…|pps_type=None|vm_id=…|timestamp=…}. Failure: {@code
 * result=error|reason=…|agent=…|<supporting k=v…>|pps_type=None|vm_id=…|timestamp=…|
 * documentation_url=https://aka.ms/linuxprovisioningerror}. Readers must not depend on field order
 * (cloud-init's and azure-init's differ); {@link #parse} reads both.
 *
 * @param fields the fields in order
 */
public record ProvisioningReport(List<Field> fields) {
  /** The page the platform links a failure to. */
  public static final String DOCUMENTATION_URL = "https://aka.ms/linuxprovisioningerror";

  /** Fields that are never shortened or dropped to make the report fit. */
  private static final Set<String> ESSENTIAL =
      Set.of("result", "reason", "agent", "vm_id", "timestamp", "documentation_url", "pps_type");

  /**
   * The CSV dialect, made when first used: commons-csv is some twenty classes that reading a report
   * without quotes (every report seen so far) need not load ({@link #parse}).
   */
  private static final class Csv {
    static final CSVFormat FORMAT =
        CSVFormat.Builder.create()
            .setDelimiter('|')
            .setQuote('"')
            .setQuoteMode(QuoteMode.MINIMAL)
            .setRecordSeparator("")
            .get();

    private Csv() {}

    static List<String> fields(String value) {
      try (CSVParser parser = CSVParser.parse(new StringReader(value), FORMAT)) {
        List<CSVRecord> rows = parser.getRecords();
        if (rows.size() != 1) {
          throw new IllegalArgumentException(
              "a provisioning report is one CSV row; found " + rows.size());
        }
        return rows.get(0).toList();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (IllegalStateException | java.io.UncheckedIOException e) {
        throw new IllegalArgumentException("not a provisioning report: " + e.getMessage(), e);
      }
    }
  }

  private static final int MAX_BYTES = KvpLimits.HOST_SAFE.maxValueBytes();
  private static final String ELLIPSIS = "...";

  /** One {@code key=value} field. */
  public record Field(String key, String value) {
    public Field {
      requireNonNull(key, "key");
      requireNonNull(value, "value");
    }
  }

  public ProvisioningReport {
    fields = List.copyOf(fields);
  }

  /**
   * The report's own fields, which supporting data must not name: {@code result}, {@code reason},
   * {@code agent}, {@code vm_id}, {@code timestamp}, {@code documentation_url}, {@code pps_type}.
   */
  public static Set<String> ownFields() {
    return ESSENTIAL;
  }

  /** A success report. */
  public static ProvisioningReport success(String agent, String vmId, Instant timestamp) {
    return success(agent, vmId, timestamp, Map.of());
  }

  /**
   * A success report with supporting data (e.g. {@code source=ovf}: provisioned from the media
   * alone), in the map's iteration order.
   */
  public static ProvisioningReport success(
      String agent, String vmId, Instant timestamp, Map<String, String> supporting) {
    List<Field> fields = new ArrayList<>();
    fields.add(new Field("result", "success"));
    fields.add(new Field("agent", agent));
    supporting.forEach((k, v) -> fields.add(new Field(k, v)));
    fields.add(new Field("pps_type", "None"));
    fields.add(new Field("vm_id", vmId));
    fields.add(new Field("timestamp", timestamp(timestamp)));
    return new ProvisioningReport(fields);
  }

  /**
   * A failure report.
   *
   * @param reason the short reason the platform's alerting keys on
   * @param supporting what helps explain it (step, exit code, …), written in the map's iteration
   *     order (pass a {@code LinkedHashMap} to choose it); shortened first when the report would
   *     not fit one record
   */
  public static ProvisioningReport failure(
      String reason, String agent, String vmId, Instant timestamp, Map<String, String> supporting) {
    List<Field> fields = new ArrayList<>();
    fields.add(new Field("result", "error"));
    fields.add(new Field("reason", reason));
    fields.add(new Field("agent", agent));
    supporting.forEach((k, v) -> fields.add(new Field(k, v)));
    fields.add(new Field("pps_type", "None"));
    fields.add(new Field("vm_id", vmId));
    fields.add(new Field("timestamp", timestamp(timestamp)));
    fields.add(new Field("documentation_url", DOCUMENTATION_URL));
    return new ProvisioningReport(fields);
  }

  private static String timestamp(Instant timestamp) {
    return timestamp.truncatedTo(ChronoUnit.MILLIS).toString();
  }

  /** The same report with {@code transform} applied to every value (to mask secrets). */
  public ProvisioningReport redacted(java.util.function.UnaryOperator<String> transform) {
    return new ProvisioningReport(
        fields.stream().map(f -> new Field(f.key(), transform.apply(f.value()))).toList());
  }

  /** The value of the first field with this key. */
  public Optional<String> get(String key) {
    return fields.stream().filter(f -> f.key().equals(key)).map(Field::value).findFirst();
  }

  /** Whether {@code result=success}. */
  public boolean isSuccess() {
    return get("result").map("success"::equals).orElse(false);
  }

  /**
   * The report as a KVP value of at most 1022 bytes. Supporting fields are shortened (longest
   * first, marked {@code ...}) and then dropped from the end until it fits; the reason is shortened
   * only if even that is not enough. The essential fields are always kept whole.
   */
  public String encode() {
    List<Field> fitted = new ArrayList<>(fields);
    String encoded = format(fitted);
    while (bytes(encoded) > MAX_BYTES) {
      int excess = bytes(encoded) - MAX_BYTES;
      Optional<Integer> longest =
          indexes(fitted, false).stream()
              .filter(i -> fitted.get(i).value().length() > 16)
              .max(Comparator.comparingInt(i -> fitted.get(i).value().length()));
      if (longest.isPresent()) {
        shorten(fitted, longest.get(), excess);
      } else if (!indexes(fitted, false).isEmpty()) {
        List<Integer> supporting = indexes(fitted, false);
        fitted.remove((int) supporting.get(supporting.size() - 1));
      } else {
        int reason = indexOf(fitted, "reason");
        if (reason < 0 || fitted.get(reason).value().length() <= ELLIPSIS.length() + 1) {
          throw new IllegalStateException(
              "the essential fields alone exceed " + MAX_BYTES + " bytes");
        }
        shorten(fitted, reason, excess);
      }
      encoded = format(fitted);
    }
    return encoded;
  }

  private static void shorten(List<Field> fields, int index, int excess) {
    Field field = fields.get(index);
    String value = field.value();
    int keep = Math.max(1, value.length() - excess - ELLIPSIS.length());
    if (Character.isLowSurrogate(value.charAt(keep))) {
      keep--; // never split a surrogate pair
    }
    fields.set(index, new Field(field.key(), value.substring(0, Math.max(1, keep)) + ELLIPSIS));
  }

  private static List<Integer> indexes(List<Field> fields, boolean essential) {
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) {
      if (ESSENTIAL.contains(fields.get(i).key()) == essential) {
        out.add(i);
      }
    }
    return out;
  }

  private static int indexOf(List<Field> fields, String key) {
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).key().equals(key)) {
        return i;
      }
    }
    return -1;
  }

  private static String format(List<Field> fields) {
    return Csv.FORMAT.format(fields.stream().map(f -> f.key() + "=" + f.value()).toArray());
  }

  private static int bytes(String s) {
    return s.getBytes(UTF_8).length;
  }

  /**
   * Reads a report as cloud-init, azure-init or kvprov wrote it. A field without {@code =} becomes
   * a key with an empty value.
   *
   * @throws IllegalArgumentException if the text is not one CSV row
   */
  public static ProvisioningReport parse(String value) {
    requireNonNull(value, "value");
    List<Field> fields = new ArrayList<>();
    for (String field : fieldsOf(value)) {
      int equals = field.indexOf('=');
      fields.add(
          equals < 0
              ? new Field(field, "")
              : new Field(field.substring(0, equals), field.substring(equals + 1)));
    }
    return new ProvisioningReport(fields);
  }

  /**
   * The row's fields. Without a quote or a line break, a row is its text cut at each {@code |}, as
   * the CSV parser would read it (ProvisioningReportTest compares the two); anything else is left
   * to the parser.
   */
  static List<String> fieldsOf(String value) {
    if (value.isEmpty()
        || value.indexOf('"') >= 0
        || value.indexOf('\n') >= 0
        || value.indexOf('\r') >= 0) {
      return Csv.fields(value);
    }
    List<String> fields = new ArrayList<>();
    int from = 0;
    for (int bar; (bar = value.indexOf('|', from)) >= 0; from = bar + 1) {
      fields.add(value.substring(from, bar));
    }
    fields.add(value.substring(from));
    return fields;
  }

  /** The row's fields as the CSV parser reads them, quotes or not (tests compare). */
  static List<String> csvFields(String value) {
    return Csv.fields(value);
  }
}
