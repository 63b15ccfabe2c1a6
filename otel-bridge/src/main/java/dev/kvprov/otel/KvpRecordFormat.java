package dev.kvprov.otel;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import dev.kvprov.kvp.KvpLimits;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.ValueChunker;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.AttributeType;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;

/**
 * The KVP records kvprov writes (specified in {@code docs/kvp-format.md}), encoded and decoded.
 *
 * <p>Key: {@code kvprov-1|<vm id>|<LEVEL>|<kind>|<name>|<record id>}, plus {@code |<i>/<n>} on the
 * pieces of a value too long for one record. The name is the span name made key-safe and, when it
 * had to change or is long, shortened with a hash of the full name; the full name is in the value.
 *
 * <p>Value: labelled fields separated by {@code " | "}, e.g. {@code Start: 2024-06-01T10:00:00.123Z
 * | Boot: 12.345 | Trace: … | Span: … | Name: imds.fetch | Attr: http.status:int=200}, with free
 * text escaped so that every field comes back exactly as written.
 */
public final class KvpRecordFormat {
  /** Every kvprov key starts with this. */
  public static final String KEY_PREFIX = "kvprov-";

  /** The grammar version written into every key, after {@link #KEY_PREFIX}. */
  public static final int VERSION = 1;

  // The field labels of a value: public so that whoever writes or reads kvprov's records by hand
  // (the inspector, the bench's pools, CDS training, tests) says them from the grammar itself.
  public static final String START = "Start";
  public static final String END = "End";
  public static final String TIME = "Time";
  public static final String DURATION = "Duration";
  public static final String BOOT = "Boot";
  public static final String STATUS = "Status";
  public static final String ERROR = "Error";
  public static final String TRACE = "Trace";
  public static final String SPAN = "Span";
  public static final String PARENT = "Parent";
  public static final String NAME = "Name";
  public static final String EVENT = "Event";
  public static final String SEVERITY = "Severity";
  public static final String BODY = "Body";
  public static final String DROPPED = "Dropped";
  public static final String ATTR = "Attr";

  /** The most a single logical record's value may take: 4 pieces. Longer texts are cut to fit. */
  public static final int MAX_VALUE_BYTES = 4 * 1000;

  /** A text no longer than this (in chars) is never cut: what is left is labels and numbers. */
  private static final int UNCUT = 64;

  /** How many texts are cut at most, so that a pathological record still ends. */
  private static final int MAX_CUTS = 64;

  private static final String SEPARATOR = " | ";
  private static final int MAX_KEY_NAME = 48;

  /**
   * A key read by the grammar, {@code kvprov-<version>|<vm id>|<LEVEL>|<kind>|<name>|<record
   * id>[|<piece>/<pieces>]}: version and ids of 1 to 9 digits, vm id of {@code [0-9a-z-]}, record
   * id of {@code [0-9a-z.]}, a name of anything but {@code |}. By hand, not a regular expression: a
   * big pool has a key per record, and the expression was most of a key's reading.
   *
   * @param version the version as written (so that {@code 01} is not {@code 1})
   * @param pieceAt where the piece number starts in the key, or -1 for a record in one piece
   */
  private record KeyParts(
      String key,
      String version,
      String vmId,
      KvprovRecord.Level level,
      KvprovRecord.Kind kind,
      String recordId,
      int pieceAt,
      int piece,
      int pieces) {

    /** The key's parts; null when it is not a whole key of the grammar. */
    static KeyParts read(String key) {
      if (!key.startsWith(KEY_PREFIX)) {
        return null;
      }
      int at = KEY_PREFIX.length();
      int bar = digitsEnd(key, at);
      if (bar < 0 || bar == key.length() || key.charAt(bar) != '|') {
        return null;
      }
      String version = key.substring(at, bar);
      at = bar + 1;
      bar = key.indexOf('|', at);
      if (bar < 0 || !idOf(key, at, bar, true)) {
        return null;
      }
      String vmId = key.substring(at, bar);
      at = bar + 1;
      bar = key.indexOf('|', at);
      KvprovRecord.Level level = bar < 0 ? null : level(key, at, bar);
      if (level == null) {
        return null;
      }
      at = bar + 1;
      bar = key.indexOf('|', at);
      KvprovRecord.Kind kind = bar < 0 ? null : kind(key, at, bar);
      if (kind == null) {
        return null;
      }
      at = bar + 1;
      bar = key.indexOf('|', at); // the name: anything up to the next bar
      if (bar < 0) {
        return null;
      }
      at = bar + 1;
      bar = key.indexOf('|', at);
      int idEnd = bar < 0 ? key.length() : bar;
      if (!idOf(key, at, idEnd, false)) {
        return null;
      }
      String recordId = key.substring(at, idEnd);
      if (bar < 0) {
        return new KeyParts(key, version, vmId, level, kind, recordId, -1, 0, 1);
      }
      int pieceAt = bar + 1;
      int slash = digitsEnd(key, pieceAt);
      if (slash < 0 || slash == key.length() || key.charAt(slash) != '/') {
        return null;
      }
      int end = digitsEnd(key, slash + 1);
      if (end != key.length()) {
        return null;
      }
      return new KeyParts(
          key,
          version,
          vmId,
          level,
          kind,
          recordId,
          pieceAt,
          Integer.parseInt(key, pieceAt, slash, 10),
          Integer.parseInt(key, slash + 1, end, 10));
    }

    /** Where a run of 1 to 9 ASCII digits from {@code at} ends; -1 for none or too many. */
    private static int digitsEnd(String key, int at) {
      int end = at;
      while (end < key.length() && key.charAt(end) >= '0' && key.charAt(end) <= '9') {
        end++;
      }
      return end == at || end - at > 9 ? -1 : end;
    }

    /** Whether from..to is a VM id ({@code [0-9a-z-]+}) or a record id ({@code [0-9a-z.]+}). */
    private static boolean idOf(String key, int from, int to, boolean vmId) {
      if (from >= to) {
        return false;
      }
      for (int i = from; i < to; i++) {
        char c = key.charAt(i);
        if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c == (vmId ? '-' : '.'))) {
          return false;
        }
      }
      return true;
    }

    private static KvprovRecord.Level level(String key, int from, int to) {
      for (KvprovRecord.Level level : LEVELS) {
        if (key.startsWith(level.name(), from) && level.name().length() == to - from) {
          return level;
        }
      }
      return null;
    }

    private static KvprovRecord.Kind kind(String key, int from, int to) {
      for (KvprovRecord.Kind kind : KINDS) {
        if (key.startsWith(kind.token(), from) && kind.token().length() == to - from) {
          return kind;
        }
      }
      return null;
    }

    private static final KvprovRecord.Level[] LEVELS = KvprovRecord.Level.values();
    private static final KvprovRecord.Kind[] KINDS = KvprovRecord.Kind.values();

    /** The key without its piece suffix. */
    String base() {
      return pieceAt < 0 ? key : key.substring(0, pieceAt - 1);
    }
  }

  private static final Pattern LATER_GRAMMAR = Pattern.compile("kvprov-(\\d{1,9})\\|");

  private KvpRecordFormat() {}

  /**
   * A kvprov key, read: {@code kvprov-<version>|<vm id>|<level>|<kind>|<name>|<record id>}, then
   * {@code |<piece>/<pieces>} when the record's value was split.
   *
   * @param base the key without its piece suffix: the same for every piece of one record
   * @param piece this piece's number, from 0 (0 for a record in one piece)
   * @param pieces how many pieces the record has (1 for a record in one piece)
   */
  public record Key(int version, String vmId, String base, int piece, int pieces) {
    /** Whether this kvp reads the grammar the key was written in. */
    public boolean known() {
      return version == VERSION;
    }
  }

  /**
   * Reads a kvprov key by the grammar; empty if it is not kvprov's, or is of this grammar but
   * damaged. A key of another grammar ({@code kvprov-2|…}, or no readable version: -1) comes back
   * with {@link Key#known()} false, and only its version.
   */
  public static Optional<Key> key(String key) {
    requireNonNull(key, "key");
    if (!isKvprovKey(key)) {
      return Optional.empty();
    }
    KeyParts m = KeyParts.read(key);
    if (m == null) {
      if (key.startsWith(KEY_PREFIX + VERSION + "|")) {
        return Optional.empty(); // our grammar, damaged
      }
      Matcher version = LATER_GRAMMAR.matcher(key);
      return Optional.of(
          new Key(version.lookingAt() ? Integer.parseInt(version.group(1)) : -1, "", key, 0, 1));
    }
    return Optional.of(
        new Key(Integer.parseInt(m.version()), m.vmId(), m.base(), m.piece(), m.pieces()));
  }

  /** Whether a KVP key was written by kvprov (of any grammar version). */
  public static boolean isKvprovKey(String key) {
    return key.startsWith(KEY_PREFIX);
  }

  /**
   * The KVP records for one logical record: one, or several when the value is longer than the
   * host-safe 1022 bytes, split between code points with {@code |i/n} on each key.
   */
  public static List<KvpRecord> encode(KvprovRecord record) {
    requireNonNull(record, "record");
    String base =
        KEY_PREFIX
            + VERSION
            + "|"
            + record.vmId()
            + "|"
            + record.level()
            + "|"
            + record.kind().token()
            + "|"
            + keyName(record)
            + "|"
            + record.recordId();
    String value = value(record);
    if (value.getBytes(UTF_8).length <= KvpLimits.HOST_SAFE.maxValueBytes()) {
      return List.of(new KvpRecord(base, value));
    }
    List<String> pieces = ValueChunker.split(value, KvpLimits.HOST_SAFE);
    List<KvpRecord> records = new ArrayList<>(pieces.size());
    for (int i = 0; i < pieces.size(); i++) {
      records.add(new KvpRecord(base + "|" + i + "/" + pieces.size(), pieces.get(i)));
    }
    return records;
  }

  /**
   * The record cut to at most {@link #MAX_VALUE_BYTES} of value: the longest text (a field or a
   * string attribute) is shortened first, marked with how much was cut, then the next longest, as
   * long as the value is too long. Nothing is exempt, not even errors: a 200 KB stack trace must
   * not fill the pool. The record itself when it fits.
   *
   * <p>One pass over the value's parts: each part's encoded size is measured once, and again only
   * when its text is cut, instead of encoding the whole value after every cut.
   */
  public static KvprovRecord fitted(KvprovRecord record) {
    requireNonNull(record, "record");
    List<KvprovRecord.Field> fields = new ArrayList<>(record.fields());
    List<AttributeKey<?>> keys = new ArrayList<>();
    List<Object> values = new ArrayList<>();
    record
        .attributes()
        .forEach(
            (key, value) -> {
              keys.add(key);
              values.add(value);
            });
    int[] fieldBytes = new int[fields.size()];
    int[] attributeBytes = new int[keys.size()];
    int parts = 0;
    long total = 0;
    for (int i = 0; i < fields.size(); i++) {
      fieldBytes[i] = fieldBytes(fields.get(i));
      total += fieldBytes[i];
      parts++;
    }
    for (int i = 0; i < keys.size(); i++) {
      if (AttributeCodec.supported(keys.get(i))) {
        attributeBytes[i] = attributeBytes(keys.get(i), values.get(i));
        total += attributeBytes[i];
        parts++;
      }
    }
    total += (long) SEPARATOR.length() * Math.max(0, parts - 1);
    boolean cutAttribute = false;
    boolean cutField = false;
    for (int cuts = 0; cuts < MAX_CUTS && total > MAX_VALUE_BYTES; cuts++) {
      int excess = (int) (total - MAX_VALUE_BYTES);
      // The longest text: the first longest field, unless a string attribute is longer still.
      int longest = 0;
      int field = -1;
      for (int i = 0; i < fields.size(); i++) {
        if (fields.get(i).text().length() > longest) {
          longest = fields.get(i).text().length();
          field = i;
        }
      }
      int attribute = -1;
      for (int i = 0; i < keys.size(); i++) {
        if (keys.get(i).getType() == AttributeType.STRING
            && ((String) values.get(i)).length() > longest) {
          longest = ((String) values.get(i)).length();
          attribute = i;
        }
      }
      if (longest <= UNCUT) {
        break;
      }
      if (attribute >= 0) {
        values.set(attribute, cut((String) values.get(attribute), excess));
        int before = attributeBytes[attribute];
        attributeBytes[attribute] = attributeBytes(keys.get(attribute), values.get(attribute));
        total += attributeBytes[attribute] - before;
        cutAttribute = true;
      } else {
        KvprovRecord.Field was = fields.get(field);
        fields.set(field, new KvprovRecord.Field(was.label(), cut(was.text(), excess)));
        int before = fieldBytes[field];
        fieldBytes[field] = fieldBytes(fields.get(field));
        total += fieldBytes[field] - before;
        cutField = true;
      }
    }
    if (!cutAttribute && !cutField) {
      return record;
    }
    Attributes attributes = record.attributes();
    if (cutAttribute) {
      AttributesBuilder builder = Attributes.builder();
      for (int i = 0; i < keys.size(); i++) {
        putUnchecked(builder, keys.get(i), values.get(i));
      }
      attributes = builder.build();
    }
    return new KvprovRecord(
        record.kind(),
        record.level(),
        record.vmId(),
        record.recordId(),
        cutField ? fields : record.fields(),
        attributes);
  }

  /** {@code text} less at least {@code excess} bytes' worth, ending in a note of what was cut. */
  private static String cut(String text, int excess) {
    int keep = Math.max(32, text.length() - excess - 32);
    if (Character.isLowSurrogate(text.charAt(keep))) {
      keep--;
    }
    return text.substring(0, keep) + "…[" + (text.length() - keep) + " chars cut]";
  }

  /** The UTF-8 size of {@code Label: text} as {@link #value} writes it. */
  private static int fieldBytes(KvprovRecord.Field field) {
    StringBuilder out = new StringBuilder(field.label().length() + 2 + field.text().length());
    out.append(field.label()).append(": ");
    TextEscaper.escape(field.text(), "", out);
    return utf8Length(out);
  }

  /** The UTF-8 size of {@code Attr: key=value} as {@link #value} writes it. */
  private static int attributeBytes(AttributeKey<?> key, Object value) {
    StringBuilder out = new StringBuilder(64);
    out.append(ATTR).append(": ");
    AttributeCodec.encode(key, value, out);
    return utf8Length(out);
  }

  private static int utf8Length(CharSequence text) {
    return text.toString().getBytes(UTF_8).length;
  }

  @SuppressWarnings("unchecked")
  private static void putUnchecked(AttributesBuilder builder, AttributeKey<?> key, Object value) {
    builder.put((AttributeKey<Object>) key, value);
  }

  static String value(KvprovRecord record) {
    StringBuilder out = new StringBuilder(256);
    for (KvprovRecord.Field field : record.fields()) {
      if (out.length() > 0) {
        out.append(SEPARATOR);
      }
      out.append(field.label()).append(": ");
      TextEscaper.escape(field.text(), "", out);
    }
    record
        .attributes()
        .forEach(
            (key, value) -> {
              if (AttributeCodec.supported(key)) {
                if (out.length() > 0) {
                  out.append(SEPARATOR);
                }
                out.append(ATTR).append(": ");
                AttributeCodec.encode(key, value, out);
              }
            });
    return out.toString();
  }

  /**
   * The span name (or, without one, the event or kind) made safe for a key: ASCII letters, digits
   * and {@code ._:/@-}; anything else, or a name over 48 characters, becomes a 40-character prefix
   * and {@code ~} and a CRC-32C of the full name, so different names stay apart.
   */
  static String keyName(KvprovRecord record) {
    String name = record.name().orElse(record.kind().token());
    StringBuilder safe = new StringBuilder(Math.min(name.length(), MAX_KEY_NAME));
    boolean changed = false;
    for (int i = 0; i < name.length() && safe.length() <= MAX_KEY_NAME; i++) {
      char c = name.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || "._:/@-".indexOf(c) >= 0;
      safe.append(ok ? c : '_');
      changed |= !ok;
    }
    if (!changed && name.length() <= MAX_KEY_NAME && !name.isEmpty()) {
      return name;
    }
    CRC32C crc = new CRC32C();
    crc.update(name.getBytes(UTF_8));
    return safe.substring(0, Math.min(40, safe.length()))
        + "~"
        + String.format("%08x", crc.getValue());
  }

  /**
   * Puts kvprov records back together from a pool's records: pieces are joined in order, values
   * parsed. Records of other writers are skipped; damaged kvprov records are reported, never
   * thrown.
   */
  public static Decoded decode(List<KvpRecord> records) {
    requireNonNull(records, "records");
    Map<String, Group> groups = new LinkedHashMap<>();
    List<String> problems = new ArrayList<>();
    for (int index = 0; index < records.size(); index++) {
      KvpRecord record = records.get(index);
      if (!isKvprovKey(record.key())) {
        continue;
      }
      KeyParts m = KeyParts.read(record.key());
      if (m == null) {
        problems.add("record " + index + ": not a kvprov key: " + record.key());
        continue;
      }
      if (Integer.parseInt(m.version()) != VERSION) {
        problems.add("record " + index + ": grammar version " + m.version() + " is not known here");
        continue;
      }
      String base = m.base();
      Group group = groups.computeIfAbsent(base, b -> new Group(m));
      int piece = m.piece();
      int pieces = m.pieces();
      if (group.pieces.isEmpty()) {
        group.expected = pieces;
      }
      if (pieces != group.expected || piece >= pieces || group.pieces.containsKey(piece)) {
        problems.add(
            "record "
                + index
                + ": piece "
                + piece
                + "/"
                + pieces
                + " of "
                + base
                + " does not fit");
        continue;
      }
      group.pieces.put(piece, record.value());
      group.indexes.add(index);
    }
    List<DecodedRecord> decoded = new ArrayList<>();
    for (Map.Entry<String, Group> entry : groups.entrySet()) {
      Group group = entry.getValue();
      if (group.pieces.size() != group.expected) {
        problems.add(
            "records "
                + group.indexes
                + ": "
                + (group.expected - group.pieces.size())
                + " of "
                + group.expected
                + " pieces of "
                + entry.getKey()
                + " are missing");
        continue;
      }
      String value = String.join("", group.pieces.values());
      Optional<KvprovRecord> record = parse(group.key, value, problems, group.indexes);
      record.ifPresent(r -> decoded.add(new DecodedRecord(r, group.indexes)));
    }
    return new Decoded(decoded, problems);
  }

  /**
   * Reads one kvprov item whose pieces a reader has already put back together ({@code key} without
   * its {@code |i/n}): for readers that stream a pool rather than hold it. Empty when the key is
   * not kvprov's grammar version 1 or the value cannot be read; {@link #decode} says why.
   */
  public static Optional<KvprovRecord> decodeJoined(String key, String value) {
    requireNonNull(key, "key");
    requireNonNull(value, "value");
    if (!isKvprovKey(key)) {
      return Optional.empty();
    }
    KeyParts m = KeyParts.read(key);
    if (m == null || !m.version().equals(VERSION_TEXT)) {
      return Optional.empty();
    }
    return parse(m, value, new ArrayList<>(0), List.of());
  }

  private static final String VERSION_TEXT = Integer.toString(VERSION);

  private static Optional<KvprovRecord> parse(
      KeyParts key, String value, List<String> problems, List<Integer> indexes) {
    List<KvprovRecord.Field> fields = new ArrayList<>();
    AttributesBuilder attributes = Attributes.builder();
    int start = 0;
    while (start <= value.length() && !value.isEmpty()) {
      int bar = TextEscaper.indexOfUnescaped(value, '|', start, value.length());
      int end = bar < 0 ? value.length() : bar;
      // The separator is " | ": drop the space before it and the one after it.
      int fieldEnd = bar >= 0 && end > start && value.charAt(end - 1) == ' ' ? end - 1 : end;
      int colon = value.indexOf(": ", start);
      if (colon < 0 || colon > fieldEnd) {
        problems.add("records " + indexes + ": a field without a label in " + key.key());
        return Optional.empty();
      }
      String label = value.substring(start, colon);
      if (label.equals(ATTR)) {
        String text = value.substring(colon + 2, fieldEnd);
        if (!AttributeCodec.decode(text, attributes)) {
          problems.add(
              "records " + indexes + ": unreadable attribute '" + text + "' in " + key.key());
        }
      } else {
        try {
          fields.add(
              new KvprovRecord.Field(label, TextEscaper.unescape(value, colon + 2, fieldEnd)));
        } catch (IllegalArgumentException e) {
          problems.add("records " + indexes + ": " + e.getMessage() + " in " + key.key());
          return Optional.empty();
        }
      }
      if (bar < 0) {
        break;
      }
      start = bar + 1 < value.length() && value.charAt(bar + 1) == ' ' ? bar + 2 : bar + 1;
    }
    try {
      return Optional.of(
          new KvprovRecord(
              key.kind(), key.level(), key.vmId(), key.recordId(), fields, attributes.build()));
    } catch (IllegalArgumentException e) {
      problems.add("records " + indexes + ": " + e.getMessage());
      return Optional.empty();
    }
  }

  private static final class Group {
    final KeyParts key;
    final TreeMap<Integer, String> pieces = new TreeMap<>();
    final List<Integer> indexes = new ArrayList<>();
    int expected;

    Group(KeyParts key) {
      this.key = key;
    }
  }

  /** A decoded record and the indexes of the KVP records it came from. */
  public record DecodedRecord(KvprovRecord record, List<Integer> recordIndexes) {
    public DecodedRecord {
      requireNonNull(record, "record");
      recordIndexes = List.copyOf(recordIndexes);
    }
  }

  /** What {@link #decode} found: the kvprov records in pool order, and what could not be read. */
  public record Decoded(List<DecodedRecord> records, List<String> problems) {
    public Decoded {
      records = List.copyOf(records);
      problems = List.copyOf(problems);
    }
  }
}
